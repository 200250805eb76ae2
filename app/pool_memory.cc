#include "app/pool_memory.h"

namespace paddock::app {

std::size_t PoolMemory::join(GiveWay give_way) {
  std::lock_guard lock(mutex_);
  members_.push_back({std::move(give_way), 0});
  return members_.size() - 1;
}

void PoolMemory::set_held(std::size_t pool, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  Member& member = members_.at(pool);
  if (member.give_way) member.held = bytes;  // what a pool that left still closes is not counted
}

bool PoolMemory::reserve(std::size_t pool, std::uint64_t own, std::uint64_t more) {
  std::lock_guard lock(mutex_);
  std::uint64_t held = own;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i != pool) held += members_[i].held;
  }
  if (more == 0 ? held >= budget_ : held + more > budget_) return false;
  members_.at(pool).held = own + more;
  return true;
}

void PoolMemory::leave(std::size_t pool) {
  std::unique_lock asking(asking_);
  std::lock_guard lock(mutex_);
  members_.at(pool) = {};
}

std::uint64_t PoolMemory::held() const {
  std::lock_guard lock(mutex_);
  std::uint64_t total = 0;
  for (const auto& member : members_) total += member.held;
  return total;
}

std::uint64_t PoolMemory::held_by_others(std::size_t pool) const {
  std::lock_guard lock(mutex_);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i != pool) total += members_[i].held;
  }
  return total;
}

std::uint64_t PoolMemory::ask_others(std::size_t pool, Clock::time_point wanted_before,
                                     std::uint64_t bytes, bool dry_run) {
  std::shared_lock asking(asking_);
  std::vector<GiveWay> others;
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (i != pool && members_[i].give_way) others.push_back(members_[i].give_way);
    }
  }
  // Each gives way with this lock released: it reports its new holding through set_held.
  std::uint64_t freed = 0;
  for (auto& give_way : others) {
    if (freed >= bytes) break;
    freed += give_way(wanted_before, bytes - freed, dry_run);
  }
  return freed;
}

}  // namespace paddock::app
