#pragma once

// What the request bodies one sandbox's intercepted connections hold whole (--secret-in-body,
// net/egress/brokered_requests.h) may take of the server's memory together. Each body is bounded on
// its own (kMaxBrokeredBody), but without a bound for them all, 60 connections that each sent
// all but the last byte of a 1 MiB body held 84-93 MiB of the server's memory (issue 49). One
// per proxy, used on its loop's thread alone.

#include <cstddef>

namespace paddock::net::egress {

// A sandbox's held bodies together: a few bodies of the largest size at once.
inline constexpr std::size_t kHeldBodiesPerSandbox = 4 << 20;

class HeldBodyBudget {
 public:
  explicit HeldBodyBudget(std::size_t limit = kHeldBodiesPerSandbox) : limit_(limit) {}
  HeldBodyBudget(const HeldBodyBudget&) = delete;
  HeldBodyBudget& operator=(const HeldBodyBudget&) = delete;

  // Takes `bytes` more, or nothing when that would pass the limit.
  [[nodiscard]] bool take(std::size_t bytes) {
    if (bytes > limit_ - held_) return false;
    held_ += bytes;
    return true;
  }
  void give_back(std::size_t bytes) { held_ -= bytes < held_ ? bytes : held_; }
  [[nodiscard]] std::size_t held() const { return held_; }
  [[nodiscard]] std::size_t limit() const { return limit_; }

 private:
  const std::size_t limit_;
  std::size_t held_ = 0;
};

}  // namespace paddock::net::egress
