#pragma once

// A token bucket: at most `burst` tokens, refilled at `per_second`; each take() spends one. The
// egress proxy spends one per TLS connection it terminates for a brokered secret's host, since
// each costs the server a TLS handshake on either side (net/egress/proxy.h says how many).

#include <algorithm>
#include <chrono>

namespace paddock::net::egress {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(double per_second, double burst)
      : per_second_(per_second), burst_(burst), tokens_(burst), at_(Clock::now()) {}

  // Spends a token, or says there is none now.
  [[nodiscard]] bool take(Clock::time_point now) {
    std::chrono::duration<double> passed = now - at_;
    if (passed.count() > 0) {
      tokens_ = std::min(burst_, tokens_ + passed.count() * per_second_);
      at_ = now;
    }
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  const double per_second_;
  const double burst_;
  double tokens_;
  Clock::time_point at_;
};

}  // namespace paddock::net::egress
