#pragma once

// The memory budget of everything that waits for a call (--pool-memory): warm sandboxes with
// their preloaded interpreters, and ready kernels. The pools share it. Each measures what it
// holds (the PSS of each waiting sandbox's processes, as it arrives) and tells the budget; a pool
// opens one more only when the last measured size of that kind fits beside what all of them hold,
// and when it does not, the pools first give up sandboxes that were wanted less recently than the
// one that needs the room.
//
// The pools' locks are never nested: a pool asks another to give way with its own lock released.
// A pool leaves before it is destroyed, and leaving waits for a request to give way that is
// being made of it, so no pool's thread calls into one that is gone.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace paddock::app {

// What the pools hold now, for get_session (and the logs).
struct PoolHolding {
  std::string pool;  // "warm" (fresh calls' sandboxes) or "ready_kernel"
  std::string language;
  std::size_t waiting = 0;
  std::size_t opening = 0;
  std::uint64_t bytes = 0;  // the waiting ones' PSS
  std::uint64_t each = 0;   // the last one measured; 0 before any
};
struct PoolsSummary {
  std::uint64_t budget = 0;
  std::uint64_t held = 0;
  std::vector<PoolHolding> holdings;
};

class PoolMemory {
 public:
  using Clock = std::chrono::steady_clock;
  // Retires waiting sandboxes last wanted before `wanted_before`, least recently wanted first,
  // until `bytes` are freed or none is left that old; returns the bytes freed. With `dry_run`,
  // retires none and says what it would free.
  using GiveWay = std::function<std::uint64_t(Clock::time_point wanted_before, std::uint64_t bytes,
                                              bool dry_run)>;

  explicit PoolMemory(std::uint64_t budget) : budget_(budget) {}
  PoolMemory(const PoolMemory&) = delete;
  PoolMemory& operator=(const PoolMemory&) = delete;

  [[nodiscard]] std::uint64_t budget() const { return budget_; }

  // A pool's place, by which it reports what it holds and is asked to give way.
  std::size_t join(GiveWay give_way);
  void set_held(std::size_t pool, std::uint64_t bytes);
  // Whether `more` bytes fit beside `own` (the pool's holding now) and what the others hold; if
  // so, the pool holds own + more from now on, in the same step, so that two pools cannot both
  // take the last room. `more` 0 (a kind not measured yet) needs some room left.
  bool reserve(std::size_t pool, std::uint64_t own, std::uint64_t more);
  // The pool is going: it is asked nothing from now on, and holds nothing.
  void leave(std::size_t pool);
  [[nodiscard]] std::uint64_t held() const;
  [[nodiscard]] std::uint64_t held_by_others(std::size_t pool) const;
  // Asks the other pools to give way, least recently wanted first, until `bytes` are freed or
  // none can; the bytes freed (with `dry_run`, that could be). Called with the asking pool's lock
  // released.
  std::uint64_t ask_others(std::size_t pool, Clock::time_point wanted_before, std::uint64_t bytes,
                           bool dry_run);

 private:
  struct Member {
    GiveWay give_way;  // empty once the pool left
    std::uint64_t held = 0;
  };
  const std::uint64_t budget_;
  mutable std::mutex mutex_;  // members_' fields
  // Held shared while the others are asked to give way (without mutex_: a pool reports to it
  // with its own lock held, and giving way takes that lock), and alone to leave.
  std::shared_mutex asking_;
  std::vector<Member> members_;
};

}  // namespace paddock::app
