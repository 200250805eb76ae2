// The host's one wall timer: a poll never wakes before the deadline, and a passed deadline
// leaves nothing to wait for.

#include "runtime/wall_timer.h"

#include <gtest/gtest.h>

namespace paddock::wall_timer_test {
namespace {

TEST(WallTimer, ADeadlineIsItsSecondsAfterItsStart) {
  auto start = runtime::WallClock::now();
  EXPECT_EQ(runtime::deadline_after(1.5, start) - start, std::chrono::milliseconds(1500));
  EXPECT_EQ(runtime::deadline_after(0, start), start);
}

TEST(WallTimer, APollWaitsAtLeastWhatIsLeftAndNothingOncePassed) {
  auto deadline = runtime::deadline_after(2);
  int wait = runtime::poll_ms_until(deadline);
  EXPECT_GT(wait, 1900);
  EXPECT_LE(wait, 2001);  // whole milliseconds, rounded up
  EXPECT_GT(runtime::seconds_until(deadline), 1.9);
  auto passed = runtime::deadline_after(-1);
  EXPECT_EQ(runtime::poll_ms_until(passed), 0);
  EXPECT_EQ(runtime::seconds_until(passed), 0);
}

}  // namespace
}  // namespace paddock::wall_timer_test
