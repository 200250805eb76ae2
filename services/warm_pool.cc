#include "services/warm_pool.h"

#include <malloc.h>

#include "services/log.h"

namespace paddock::mcp {

using Clock = std::chrono::steady_clock;

WarmPool::WarmPool(std::size_t per_language, Opener open, Room room)
    : per_language_(per_language), open_(std::move(open)), room_(std::move(room)) {
  if (per_language_ > 0) filler_ = std::thread([this] { fill(); });
}

WarmPool::~WarmPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (filler_.joinable()) filler_.join();
  // The sandboxes still held close as slots_ and retired_ go.
}

WarmPool::Slot& WarmPool::want(const std::string& language, const SandboxShape& shape,
                               const std::optional<WarmInterpreter>& interpreter) {
  Slot& slot = slots_[language];
  if (!(slot.shape == shape) || slot.interpreter != interpreter) {
    slot.shape = shape;
    slot.interpreter = interpreter;
    for (auto& stale : slot.waiting) retired_.push_back(std::move(stale.sandbox));
    slot.waiting.clear();
  }
  slot.failed = false;
  return slot;
}

std::size_t WarmPool::count() const {
  std::size_t total = retired_.size();
  for (const auto& [language, slot] : slots_) total += slot.waiting.size() + slot.opening;
  return total;
}

std::pair<const std::string, WarmPool::Slot>* WarmPool::wanting() {
  for (auto& entry : slots_) {
    Slot& slot = entry.second;
    if (!slot.failed && slot.waiting.size() + slot.opening < per_language_) return &entry;
  }
  return nullptr;
}

Clock::time_point WarmPool::retire_aged() {
  auto now = Clock::now();
  auto next = Clock::time_point::max();
  for (auto& [language, slot] : slots_) {
    bool ages = slot.shape.network != NetworkMode::kNone || !slot.shape.allowed_hosts.empty();
    if (!ages) continue;
    while (!slot.waiting.empty() && now - slot.waiting.front().made >= kMaxWait) {
      retired_.push_back(std::move(slot.waiting.front().sandbox));
      slot.waiting.erase(slot.waiting.begin());
    }
    if (!slot.waiting.empty()) next = std::min(next, slot.waiting.front().made + kMaxWait);
  }
  return next;
}

std::unique_ptr<Session> WarmPool::take(const std::string& language, const SandboxShape& shape,
                                        const std::optional<WarmInterpreter>& interpreter,
                                        const RunPlan& plan) {
  if (per_language_ == 0) return nullptr;
  std::unique_ptr<Session> taken;
  {
    std::lock_guard lock(mutex_);
    retire_aged();
    // A call its language's interpreter cannot take runs cold, and the pool stays as it was for
    // the calls that can: only a new shape changes what it keeps.
    if (interpreter && !fits(*interpreter, plan)) {
      const auto found = slots_.find(language);
      if (found != slots_.end() && found->second.shape == shape) return nullptr;
    }
    Slot& slot = want(language, shape, interpreter);
    if (!slot.interpreter || fits(*slot.interpreter, plan)) {
      while (!slot.waiting.empty() && !taken) {
        taken = std::move(slot.waiting.back().sandbox);  // the youngest
        slot.waiting.pop_back();
        // One that died while it waited (killed from outside) is replaced, not used.
        if (taken->ended()) retired_.push_back(std::move(taken));
      }
    }
  }
  changed_.notify_all();
  return taken;
}

void WarmPool::prepare(const std::string& language, const SandboxShape& shape,
                       const std::optional<WarmInterpreter>& interpreter) {
  if (per_language_ == 0) return;
  {
    std::lock_guard lock(mutex_);
    want(language, shape, interpreter);
  }
  changed_.notify_all();
}

void WarmPool::retire(std::unique_ptr<Session> used) {
  if (!used) return;
  {
    std::lock_guard lock(mutex_);
    retired_.push_back(std::move(used));
  }
  changed_.notify_all();
}

WarmPool::CallInFlight::CallInFlight(WarmPool& pool) : pool_(pool) {
  std::lock_guard lock(pool_.mutex_);
  ++pool_.calls_in_flight_;
}

WarmPool::CallInFlight::~CallInFlight() {
  {
    std::lock_guard lock(pool_.mutex_);
    if (--pool_.calls_in_flight_ == 0 && !pool_.stopping_) {
      auto* wanting = pool_.wanting();
      if (wanting != nullptr && pool_.room_(pool_.count())) {
        ++wanting->second.opening;
        ++wanting->second.promised;
      }
    }
  }
  pool_.changed_.notify_all();
}

void WarmPool::fit() {
  if (per_language_ == 0) return;
  {
    std::lock_guard lock(mutex_);
    // The sandboxes that stay: retired ones are on their way out. room_(n) says whether n + 1
    // fit, so room_(kept - 1) whether all kept ones do.
    std::size_t kept = count() - retired_.size();
    for (auto& [language, slot] : slots_) {
      while (!slot.waiting.empty() && !room_(kept - 1)) {
        retired_.push_back(std::move(slot.waiting.front().sandbox));
        slot.waiting.erase(slot.waiting.begin());
        --kept;
      }
    }
  }
  changed_.notify_all();
}

void WarmPool::fill() {
  std::unique_lock lock(mutex_);
  bool trimmed = false;
  while (!stopping_) {
    auto next_expiry = retire_aged();
    // A promised opening first: it was counted when it was promised, calls or not since.
    std::pair<const std::string, Slot>* promised = nullptr;
    for (auto& entry : slots_) {
      if (entry.second.promised > 0) promised = &entry;
    }
    auto* wanting = promised != nullptr ? promised : this->wanting();
    bool may_open =
        promised != nullptr || (wanting != nullptr && calls_in_flight_ == 0 && room_(count()));
    // The next call wants a sandbox ready more than it wants the used one gone: used ones close
    // after the replacement is open, or first when they are what keeps it from opening.
    if (!may_open && !retired_.empty()) {
      std::unique_ptr<Session> used = std::move(retired_.back());
      retired_.pop_back();
      lock.unlock();
      used.reset();
      lock.lock();
      trimmed = false;
      continue;
    }
    if (!may_open) {
      if (!trimmed) {
        // Settled: hand the heap's free pages back before waiting (opening and closing a
        // sandbox frees about a megabyte that malloc otherwise keeps, in holes it cannot trim
        // from the top). Off every request's path, on this thread only.
        lock.unlock();
        malloc_trim(0);
        lock.lock();
        trimmed = true;
        continue;
      }
      // Woken by a change, or when the oldest waiting sandbox is due to be replaced.
      if (next_expiry == Clock::time_point::max()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, next_expiry);
      }
      continue;
    }
    std::string language = wanting->first;
    Slot& opening = wanting->second;
    SandboxShape shape = opening.shape;
    std::optional<WarmInterpreter> interpreter = opening.interpreter;
    if (promised != nullptr) {
      --opening.promised;  // still counted in `opening`
    } else {
      ++opening.opening;
    }
    trimmed = false;
    lock.unlock();
    auto opened = open_(shape, interpreter);
    lock.lock();
    Slot& slot = slots_[language];  // std::map: the slot stays where it was
    --slot.opening;
    if (!opened) {
      log(LogLevel::kWarning,
          "could not prepare a warm " + language +
              " sandbox (its calls run cold until the next one): " + opened.error().message);
      slot.failed = true;
    } else if (stopping_ || !(slot.shape == shape) || slot.interpreter != interpreter ||
               !room_(count() - retired_.size())) {
      // Of another shape by now, or a session took the room while it opened: fit() retires only
      // the sandboxes already waiting, so one opening checks the room itself as it arrives.
      retired_.push_back(std::move(*opened));
    } else {
      slot.waiting.push_back({std::move(*opened), Clock::now()});
    }
  }
}

}  // namespace paddock::mcp
