// The token bucket that paces a sandbox's intercepted TLS handshakes (net/egress/token_bucket.h):
// its burst at once, then its rate, and never more than its burst after a long pause.

#include "net/egress/token_bucket.h"

#include <gtest/gtest.h>

namespace paddock::net::egress::token_bucket_test {
namespace {

using namespace std::chrono_literals;

TEST(TokenBucket, GivesItsBurstThenItsRate) {
  TokenBucket bucket(10, 20);
  auto start = TokenBucket::Clock::now();
  int taken = 0;
  while (bucket.take(start)) ++taken;
  EXPECT_EQ(taken, 20);
  EXPECT_FALSE(bucket.take(start + 50ms));  // half a token
  EXPECT_TRUE(bucket.take(start + 100ms));
  EXPECT_FALSE(bucket.take(start + 100ms));
  // A long pause fills it to its burst, no more.
  taken = 0;
  while (bucket.take(start + 1h)) ++taken;
  EXPECT_EQ(taken, 20);
  // A clock that seems to go back takes nothing away and gives nothing.
  EXPECT_FALSE(bucket.take(start));
}

}  // namespace
}  // namespace paddock::net::egress::token_bucket_test
