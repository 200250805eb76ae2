#pragma once

// Warm sandboxes for fresh execute_code calls: sandboxes set up in the background (namespaces,
// mounts, limits, filter), each waiting for one call, and where the language has one, its
// interpreter started and its preload list imported (runtime/warm_interpreter.h). A call takes
// one of its shape (runtime/warm_run.h), runs in it, and gives it back to be closed; it is never
// used twice.
//
// The pool keeps `per_language` sandboxes waiting for each language that has had a fresh call
// (or was prepared), of the shape its last eligible call had; a call of another shape runs cold
// and the language's sandboxes are made in the new shape from then on. A call the interpreter
// cannot take (one that sets a start-up variable) runs cold and leaves the pool as it is.
// Opening and closing happen on the pool's own thread, off the calls' path: none is opened
// while a warm call is in flight, until its answer is ready to go out (CallInFlight). A call
// that finds none waiting runs cold at once: an interpreter that preloads takes a second or more
// to be ready, far longer than the call would take cold.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/log.h"
#include "core/heap_trim.h"
#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"
#include "runtime/session.h"
#include "runtime/warm_interpreter.h"

namespace paddock::app {

template <typename Held>
class BasicWarmPool {
 public:
  // Opens one for `key` (the language, or what the caller keys it by).
  using Opener = std::function<core::Result<std::unique_ptr<Held>>(
      const std::string& key, const runtime::SandboxShape& shape,
      const std::optional<runtime::WarmInterpreter>& interpreter)>;
  // Whether the server's limits leave room for one more sandbox, given the pool's own count.
  using Room = std::function<bool(std::size_t pool_sandboxes)>;

  // With `per_language` 0 the pool holds nothing and take() always misses.
  BasicWarmPool(std::size_t per_language, Opener open, Room room);
  // Stops filling and closes every sandbox the pool holds.
  ~BasicWarmPool();
  BasicWarmPool(const BasicWarmPool&) = delete;
  BasicWarmPool& operator=(const BasicWarmPool&) = delete;

  // A sandbox of `shape` that has run nothing, or null when none waits. From now on the pool
  // keeps sandboxes of this shape, with `interpreter` started in each, waiting for `language`.
  // Null too when `plan` cannot run on the interpreter the waiting ones hold.
  std::unique_ptr<Held> take(const std::string& language, const runtime::SandboxShape& shape,
                             const std::optional<runtime::WarmInterpreter>& interpreter,
                             const runtime::RunPlan& plan);
  // Starts keeping sandboxes of `shape` waiting for `language` (the default language at start):
  // `count` of them (none: the pool's per_language), the first opened no sooner than `after`
  // from now (a server that ends within it, as a script's or a test's does, opens none).
  void prepare(const std::string& language, const runtime::SandboxShape& shape,
               const std::optional<runtime::WarmInterpreter>& interpreter,
               std::optional<std::size_t> count = std::nullopt,
               std::chrono::steady_clock::duration after = {});
  // Closes a sandbox that served its call, on the pool's thread.
  void retire(std::unique_ptr<Held> used);
  // How many it holds (waiting, opening and on their way out), as last counted: read without
  // the pool's lock, so that another pool's Room may ask (the pools' locks are never nested).
  [[nodiscard]] std::size_t size() const { return held_.load(std::memory_order_relaxed); }
  // Retires waiting sandboxes until the server's limits hold again (a session was just added).
  // One still opening is closed as it opens if they do not hold then.
  void fit();

  // Held by each warm call from before it takes a sandbox until its answer is ready to be written:
  // while one is, the pool opens no sandbox, so that setting up the next takes no core from the
  // call and its answer does not wait behind it (a replacement opened at the end of the call's run,
  // as the answer was being made, delayed it by up to 1.5 ms). Used sandboxes still close. Other
  // calls (a long cell of a live session) do not hold the pool back.
  class CallInFlight {
   public:
    explicit CallInFlight(BasicWarmPool& pool);
    ~CallInFlight();
    CallInFlight(const CallInFlight&) = delete;
    CallInFlight& operator=(const CallInFlight&) = delete;

   private:
    BasicWarmPool& pool_;
  };

  // How long a sandbox with a network may wait. What it learned of the host when it was made
  // (the host's own addresses, which its network fence and egress proxy refuse) is at most this
  // old when its call comes; a cold run holds its own for as long as it runs. A sandbox without
  // one learned nothing of the host that can age, and waits as long as the server runs (a warm
  // interpreter's preload costs a second or more of CPU each time it is made again).
  static constexpr std::chrono::seconds kMaxWait{30};

 private:
  struct Waiting {
    std::unique_ptr<Held> sandbox;
    std::chrono::steady_clock::time_point made;
  };
  struct Slot {
    runtime::SandboxShape shape;
    std::optional<runtime::WarmInterpreter> interpreter;
    std::vector<Waiting> waiting;  // oldest first
    std::size_t opening = 0;       // being opened, or promised
    // Of `opening`, those promised when the last call in flight ended and not yet started: the
    // pool's thread opens them even if another call is in flight by the time it wakes.
    std::size_t promised = 0;
    // Opening failed (an image removed, a limit reached): tried again at the next take().
    bool failed = false;
    std::size_t wanted = 0;  // waiting or opening: per_language, or what prepare() asked
    std::chrono::steady_clock::time_point not_before{};  // prepare()'s `after`
  };

  // Sets the shape (and interpreter) `language` wants, dropping sandboxes of another. Called
  // with mutex_ held.
  Slot& want(const std::string& language, const runtime::SandboxShape& shape,
             const std::optional<runtime::WarmInterpreter>& interpreter);
  [[nodiscard]] std::size_t count() const;  // with mutex_ held: waiting, opening and retired
  void publish() { held_.store(count(), std::memory_order_relaxed); }  // with mutex_ held
  // The first language with fewer sandboxes waiting or opening than it wants (and not failed,
  // nor waiting for its not_before), or null; with mutex_ held. `later` gets the earliest
  // not_before of those that are waiting for it.
  std::pair<const std::string, Slot>* wanting(
      std::chrono::steady_clock::time_point* later = nullptr);
  // Retires the sandboxes that have waited kMaxWait; the time the next one will have. With
  // mutex_ held.
  std::chrono::steady_clock::time_point retire_aged();
  void fill();  // the pool's thread

  const std::size_t per_language_;
  const Opener open_;
  const Room room_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Slot> slots_;
  std::vector<std::unique_ptr<Held>> retired_;
  std::size_t calls_in_flight_ = 0;  // CallInFlight
  bool stopping_ = false;
  std::atomic<std::size_t> held_{0};  // count(), for size()
  std::thread filler_;
};

// The pool of fresh calls' sandboxes.
using WarmPool = BasicWarmPool<runtime::Session>;

template <typename Held>
BasicWarmPool<Held>::BasicWarmPool(std::size_t per_language, Opener open, Room room)
    : per_language_(per_language), open_(std::move(open)), room_(std::move(room)) {
  if (per_language_ > 0) filler_ = std::thread([this] { fill(); });
}

template <typename Held>
BasicWarmPool<Held>::~BasicWarmPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (filler_.joinable()) filler_.join();
  // The sandboxes still held close as slots_ and retired_ go.
}

template <typename Held>
typename BasicWarmPool<Held>::Slot& BasicWarmPool<Held>::want(
    const std::string& language, const runtime::SandboxShape& shape,
    const std::optional<runtime::WarmInterpreter>& interpreter) {
  Slot& slot = slots_[language];
  if (!(slot.shape == shape) || slot.interpreter != interpreter) {
    slot.shape = shape;
    slot.interpreter = interpreter;
    for (auto& stale : slot.waiting) retired_.push_back(std::move(stale.sandbox));
    slot.waiting.clear();
  }
  slot.failed = false;
  slot.wanted = std::max(slot.wanted, per_language_);
  return slot;
}

template <typename Held>
std::size_t BasicWarmPool<Held>::count() const {
  std::size_t total = retired_.size();
  for (const auto& [language, slot] : slots_) total += slot.waiting.size() + slot.opening;
  return total;
}

template <typename Held>
std::pair<const std::string, typename BasicWarmPool<Held>::Slot>* BasicWarmPool<Held>::wanting(
    std::chrono::steady_clock::time_point* later) {
  auto now = std::chrono::steady_clock::now();
  for (auto& entry : slots_) {
    Slot& slot = entry.second;
    if (slot.failed || slot.waiting.size() + slot.opening >= slot.wanted) continue;
    if (slot.not_before <= now) return &entry;
    if (later != nullptr) *later = std::min(*later, slot.not_before);
  }
  return nullptr;
}

template <typename Held>
std::chrono::steady_clock::time_point BasicWarmPool<Held>::retire_aged() {
  auto now = std::chrono::steady_clock::now();
  auto next = std::chrono::steady_clock::time_point::max();
  for (auto& [language, slot] : slots_) {
    bool ages =
        slot.shape.network != runtime::NetworkMode::kNone || !slot.shape.allowed_hosts.empty();
    if (!ages) continue;
    while (!slot.waiting.empty() && now - slot.waiting.front().made >= kMaxWait) {
      retired_.push_back(std::move(slot.waiting.front().sandbox));
      slot.waiting.erase(slot.waiting.begin());
    }
    if (!slot.waiting.empty()) next = std::min(next, slot.waiting.front().made + kMaxWait);
  }
  return next;
}

template <typename Held>
std::unique_ptr<Held> BasicWarmPool<Held>::take(
    const std::string& language, const runtime::SandboxShape& shape,
    const std::optional<runtime::WarmInterpreter>& interpreter, const runtime::RunPlan& plan) {
  if (per_language_ == 0) return nullptr;
  std::unique_ptr<Held> taken;
  {
    std::lock_guard lock(mutex_);
    retire_aged();
    // A call its language's interpreter cannot take runs cold, and the pool stays as it was for
    // the calls that can: only a new shape changes what it keeps.
    if (interpreter && !runtime::fits(*interpreter, plan)) {
      const auto found = slots_.find(language);
      if (found != slots_.end() && found->second.shape == shape) return nullptr;
    }
    Slot& slot = want(language, shape, interpreter);
    if (!slot.interpreter || runtime::fits(*slot.interpreter, plan)) {
      while (!slot.waiting.empty() && !taken) {
        taken = std::move(slot.waiting.back().sandbox);  // the youngest
        slot.waiting.pop_back();
        // One that died while it waited (killed from outside) is replaced, not used.
        if (taken->ended()) retired_.push_back(std::move(taken));
      }
    }
    publish();
  }
  changed_.notify_all();
  return taken;
}

template <typename Held>
void BasicWarmPool<Held>::prepare(const std::string& language, const runtime::SandboxShape& shape,
                                  const std::optional<runtime::WarmInterpreter>& interpreter,
                                  std::optional<std::size_t> count,
                                  std::chrono::steady_clock::duration after) {
  if (per_language_ == 0) return;
  {
    std::lock_guard lock(mutex_);
    Slot& slot = want(language, shape, interpreter);
    if (count) slot.wanted = *count;
    slot.not_before = std::chrono::steady_clock::now() + after;
    publish();
  }
  changed_.notify_all();
}

template <typename Held>
void BasicWarmPool<Held>::retire(std::unique_ptr<Held> used) {
  if (!used) return;
  {
    std::lock_guard lock(mutex_);
    retired_.push_back(std::move(used));
    publish();
  }
  changed_.notify_all();
}

template <typename Held>
BasicWarmPool<Held>::CallInFlight::CallInFlight(BasicWarmPool& pool) : pool_(pool) {
  std::lock_guard lock(pool_.mutex_);
  ++pool_.calls_in_flight_;
}

template <typename Held>
BasicWarmPool<Held>::CallInFlight::~CallInFlight() {
  {
    std::lock_guard lock(pool_.mutex_);
    if (--pool_.calls_in_flight_ == 0 && !pool_.stopping_) {
      auto* wanting = pool_.wanting();
      if (wanting != nullptr && pool_.room_(pool_.count())) {
        ++wanting->second.opening;
        ++wanting->second.promised;
        pool_.publish();
      }
    }
  }
  pool_.changed_.notify_all();
}

template <typename Held>
void BasicWarmPool<Held>::fit() {
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
    publish();
  }
  changed_.notify_all();
}

template <typename Held>
void BasicWarmPool<Held>::fill() {
  std::unique_lock lock(mutex_);
  bool trimmed = false;
  while (!stopping_) {
    auto next_expiry = retire_aged();
    publish();
    // A promised opening first: it was counted when it was promised, calls or not since.
    std::pair<const std::string, Slot>* promised = nullptr;
    for (auto& entry : slots_) {
      if (entry.second.promised > 0) promised = &entry;
    }
    auto delayed = std::chrono::steady_clock::time_point::max();
    auto* wanting = promised != nullptr ? promised : this->wanting(&delayed);
    next_expiry = std::min(next_expiry, delayed);
    bool may_open =
        promised != nullptr || (wanting != nullptr && calls_in_flight_ == 0 && room_(count()));
    // The next call wants a sandbox ready more than it wants the used one gone: used ones close
    // after the replacement is open, or first when they are what keeps it from opening.
    if (!may_open && !retired_.empty()) {
      std::unique_ptr<Held> used = std::move(retired_.back());
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
        core::trim_free_heap();
        lock.lock();
        trimmed = true;
        continue;
      }
      // Woken by a change, or when the oldest waiting sandbox is due to be replaced.
      if (next_expiry == std::chrono::steady_clock::time_point::max()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, next_expiry);
      }
      continue;
    }
    std::string language = wanting->first;
    Slot& opening = wanting->second;
    runtime::SandboxShape shape = opening.shape;
    std::optional<runtime::WarmInterpreter> interpreter = opening.interpreter;
    if (promised != nullptr) {
      --opening.promised;  // still counted in `opening`
    } else {
      ++opening.opening;
    }
    publish();
    trimmed = false;
    lock.unlock();
    auto opened = open_(language, shape, interpreter);
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
      slot.waiting.push_back({std::move(*opened), std::chrono::steady_clock::now()});
    }
  }
}

}  // namespace paddock::app
