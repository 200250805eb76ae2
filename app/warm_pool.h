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
//
// With a PoolMemory, what waits stays within its budget (app/pool_memory.h): each sandbox is
// measured as it arrives, one is opened only where the last measured one of its kind fits, and
// room is made by retiring those of languages wanted less recently.

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
#include "app/pool_memory.h"
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
  // The memory one holds, in bytes (its processes' PSS); 0 when it cannot say.
  using Measure = std::function<std::uint64_t(Held&)>;

  // With `per_language` 0 the pool holds nothing and take() always misses. With `memory`, what
  // it holds, as `measure` says, stays within that budget beside the other pools'; `noun` names
  // what it holds in the log ("sandbox", "kernel").
  BasicWarmPool(std::size_t per_language, Opener open, Room room, PoolMemory* memory = nullptr,
                Measure measure = {}, std::string noun = "sandbox");
  // Stops filling and closes every sandbox the pool holds.
  ~BasicWarmPool();
  // Stops filling and waits for the pool's thread (an opening in progress ends first): what the
  // opener and the room use may go after this. What the pool holds closes with it.
  void stop();
  BasicWarmPool(const BasicWarmPool&) = delete;
  BasicWarmPool& operator=(const BasicWarmPool&) = delete;

  // A sandbox of `shape` that has run nothing, or null when none waits. From now on the pool
  // keeps sandboxes of this shape, with `interpreter` started in each, waiting for `language`.
  // Null too when `plan` cannot run on the interpreter the waiting ones hold. With `patience`,
  // when none waits but one of this shape is opening (a refill begun as the last call ended), the
  // call waits for that one, up to `patience`, rather than open its own beside it: two kernels
  // starting at once on two cores took 4.4 s for a second create_session sent straight after
  // the first, where one takes about a second. One opening is waited for by one call only.
  std::unique_ptr<Held> take(const std::string& language, const runtime::SandboxShape& shape,
                             const std::optional<runtime::WarmInterpreter>& interpreter,
                             const runtime::RunPlan& plan,
                             std::chrono::steady_clock::duration patience = {});
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

  // What the pool holds, a line per language, each named as the pool `pool` (get_session).
  [[nodiscard]] std::vector<PoolHolding> holdings(const std::string& pool);

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
  // How often a kind the memory budget had no room for is looked at again, and how soon one
  // looks again that had room made for it, once what gave way is closed.
  static constexpr std::chrono::seconds kBudgetRetry{1};
  static constexpr std::chrono::milliseconds kRoomComing{100};

 private:
  struct Waiting {
    std::unique_ptr<Held> sandbox;
    std::chrono::steady_clock::time_point made;
    std::uint64_t bytes = 0;  // measured as it arrived
  };
  struct Slot {
    runtime::SandboxShape shape;
    std::optional<runtime::WarmInterpreter> interpreter;
    std::vector<Waiting> waiting;  // oldest first
    std::size_t opening = 0;       // being opened, or promised
    // Of `opening`, those promised when the last call in flight ended and not yet started: the
    // pool's thread opens them even if another call is in flight by the time it wakes.
    std::size_t promised = 0;
    std::size_t awaited = 0;           // of `opening`, those a take() waits for
    std::uint64_t openings_ended = 0;  // kept, dropped or failed: what a waiting take() looks for
    // Opening failed (an image removed, a limit reached): tried again at the next take().
    bool failed = false;
    std::size_t wanted = 0;  // waiting or opening: per_language, or what prepare() asked
    std::chrono::steady_clock::time_point not_before{};   // prepare()'s `after`
    std::chrono::steady_clock::time_point last_wanted{};  // by take() or prepare()
    std::uint64_t each = 0;  // the last one's PSS: what one more is expected to hold
    // Not opened before this: the budget had no room for one more a moment ago, or the slot just
    // gave its room to another (which must not find it taken back before it opens its own).
    // A take() of the language clears it.
    std::chrono::steady_clock::time_point budget_retry{};
    bool told_over_budget = false;  // logged once until one fits again
  };

  // Sets the shape (and interpreter) `language` wants, dropping sandboxes of another. Called
  // with mutex_ held.
  Slot& want(const std::string& language, const runtime::SandboxShape& shape,
             const std::optional<runtime::WarmInterpreter>& interpreter);
  [[nodiscard]] std::size_t count() const;  // with mutex_ held: waiting, opening and retired
  // The bytes held: the waiting ones and those on their way out as measured, the opening ones as
  // their kind's last. With mutex_ held.
  [[nodiscard]] std::uint64_t held_bytes() const;
  void publish();  // with mutex_ held
  // Whether `bytes` more fit in the budget beside what every pool holds. With mutex_ held.
  [[nodiscard]] bool fits(std::uint64_t bytes) const;
  // Makes `bytes` fit for `slot` by retiring sandboxes of languages wanted before it, here and
  // then (with `lock` released meanwhile) in the other pools; whether they fit now. `coming`
  // says, when they do not, that enough was retired and is still closing.
  bool make_room(Slot& slot, std::uint64_t bytes, std::unique_lock<std::mutex>& lock, bool* coming);
  // Retires this pool's waiting sandboxes of languages last wanted before `wanted_before` (other
  // than `except`), least recently wanted first, until `bytes` are freed; the bytes freed. With
  // `dry_run`, only says what it would free. With mutex_ held.
  std::uint64_t retire_wanted_before(std::chrono::steady_clock::time_point wanted_before,
                                     std::uint64_t bytes, const Slot* except, bool dry_run);
  // Marks `entry` as having no room in the budget, and says so once. With mutex_ held.
  void refuse_for_budget(std::pair<const std::string, Slot>& entry);
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
  PoolMemory* const memory_;
  const Measure measure_;
  const std::string noun_;
  std::size_t memory_place_ = 0;  // in memory_
  bool told_unmeasured_ = false;  // logged once that a sandbox measured nothing
  std::string last_published_;    // what publish() last logged
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Slot> slots_;
  // On their way out, closed by the pool's thread; their bytes count until they are closed.
  std::vector<Waiting> retired_;
  std::size_t calls_in_flight_ = 0;  // CallInFlight
  bool stopping_ = false;
  std::atomic<std::size_t> held_{0};  // count(), for size()
  std::thread filler_;
};

// The pool of fresh calls' sandboxes.
using WarmPool = BasicWarmPool<runtime::Session>;

template <typename Held>
BasicWarmPool<Held>::BasicWarmPool(std::size_t per_language, Opener open, Room room,
                                   PoolMemory* memory, Measure measure, std::string noun)
    : per_language_(per_language),
      open_(std::move(open)),
      room_(std::move(room)),
      memory_(memory),
      measure_(std::move(measure)),
      noun_(std::move(noun)) {
  if (memory_ != nullptr) {
    memory_place_ = memory_->join([this](auto wanted_before, std::uint64_t bytes, bool dry_run) {
      std::uint64_t freed = 0;
      {
        std::lock_guard lock(mutex_);
        freed = retire_wanted_before(wanted_before, bytes, nullptr, dry_run);
        if (dry_run || freed == 0) return freed;
        publish();
      }
      // To close what it gave up. Only then: a pool woken for nothing would ask back.
      changed_.notify_all();
      return freed;
    });
  }
  if (per_language_ > 0) filler_ = std::thread([this] { fill(); });
}

template <typename Held>
BasicWarmPool<Held>::~BasicWarmPool() {
  stop();
  // The sandboxes still held close as slots_ and retired_ go.
}

template <typename Held>
void BasicWarmPool<Held>::stop() {
  if (memory_ != nullptr) memory_->leave(memory_place_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (filler_.joinable()) filler_.join();
}

template <typename Held>
typename BasicWarmPool<Held>::Slot& BasicWarmPool<Held>::want(
    const std::string& language, const runtime::SandboxShape& shape,
    const std::optional<runtime::WarmInterpreter>& interpreter) {
  Slot& slot = slots_[language];
  if (!(slot.shape == shape) || slot.interpreter != interpreter) {
    slot.shape = shape;
    slot.interpreter = interpreter;
    for (auto& stale : slot.waiting) retired_.push_back(std::move(stale));
    slot.waiting.clear();
  }
  slot.failed = false;
  slot.wanted = std::max(slot.wanted, per_language_);
  slot.last_wanted = std::chrono::steady_clock::now();
  slot.budget_retry = {};
  return slot;
}

template <typename Held>
std::size_t BasicWarmPool<Held>::count() const {
  std::size_t total = retired_.size();
  for (const auto& [language, slot] : slots_) total += slot.waiting.size() + slot.opening;
  return total;
}

template <typename Held>
std::uint64_t BasicWarmPool<Held>::held_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [language, slot] : slots_) {
    for (const auto& waiting : slot.waiting) total += waiting.bytes;
    total += slot.opening * slot.each;
  }
  for (const auto& leaving : retired_) total += leaving.bytes;
  return total;
}

template <typename Held>
void BasicWarmPool<Held>::publish() {
  held_.store(count(), std::memory_order_relaxed);
  if (memory_ != nullptr) memory_->set_held(memory_place_, held_bytes());
  // Each change in what waits, at debug level: why a call ran cold, in the server's own words
  // (the integration tests wait for these lines rather than guess readiness from outside). Not
  // even built when no one reads debug lines: take() publishes on every fresh call.
  if (!log_wanted(LogLevel::kDebug)) return;
  std::string said;
  for (const auto& [language, slot] : slots_) {
    said += (said.empty() ? "" : "; ") + language + ": " + std::to_string(slot.waiting.size()) +
            " waiting, " + std::to_string(slot.opening) + " opening";
  }
  if (said != last_published_) {
    last_published_ = said;
    log(LogLevel::kDebug, noun_ + " pool: " + (said.empty() ? "empty" : said));
  }
}

template <typename Held>
bool BasicWarmPool<Held>::fits(std::uint64_t bytes) const {
  if (memory_ == nullptr) return true;
  std::uint64_t held = held_bytes() + memory_->held_by_others(memory_place_);
  // One of a kind never measured counts nothing yet, but needs some room left to try.
  return bytes == 0 ? held < memory_->budget() : held + bytes <= memory_->budget();
}

template <typename Held>
std::uint64_t BasicWarmPool<Held>::retire_wanted_before(
    std::chrono::steady_clock::time_point wanted_before, std::uint64_t bytes, const Slot* except,
    bool dry_run) {
  std::vector<Slot*> older;
  for (auto& [language, slot] : slots_) {
    if (&slot != except && !slot.waiting.empty() && slot.last_wanted < wanted_before) {
      older.push_back(&slot);
    }
  }
  std::sort(older.begin(), older.end(),
            [](const Slot* a, const Slot* b) { return a->last_wanted < b->last_wanted; });
  std::uint64_t freed = 0;
  for (Slot* slot : older) {
    std::size_t given = 0;
    for (; given < slot->waiting.size() && freed < bytes; ++given) {
      freed += slot->waiting[given].bytes;
      if (!dry_run) retired_.push_back(std::move(slot->waiting[given]));
    }
    if (dry_run || given == 0) continue;
    slot->waiting.erase(slot->waiting.begin(), slot->waiting.begin() + given);
    slot->budget_retry = std::chrono::steady_clock::now() + kBudgetRetry;
  }
  return freed;
}

template <typename Held>
bool BasicWarmPool<Held>::make_room(Slot& slot, std::uint64_t bytes,
                                    std::unique_lock<std::mutex>& lock, bool* coming) {
  *coming = false;
  if (fits(bytes)) return true;
  std::uint64_t held = held_bytes() + memory_->held_by_others(memory_place_) + bytes;
  std::uint64_t short_by = held > memory_->budget() ? held - memory_->budget() : 1;
  auto wanted = slot.last_wanted;
  // Nothing is given up unless enough can be: sandboxes closed for a kind that still would not
  // fit (one larger than the budget) would be made again, and closed again, every second.
  std::uint64_t own = retire_wanted_before(wanted, short_by, &slot, true);
  if (own < short_by) {
    lock.unlock();
    std::uint64_t others = memory_->ask_others(memory_place_, wanted, short_by - own, true);
    lock.lock();
    if (own + others < short_by) return false;
  }
  std::uint64_t freed = retire_wanted_before(wanted, short_by, &slot, false);
  publish();
  if (freed < short_by) {
    lock.unlock();
    freed += memory_->ask_others(memory_place_, wanted, short_by - freed, false);
    lock.lock();
  }
  // What was given up counts until it is closed (by this pool's thread or the other's), which
  // happens before either opens anything more: the room is there a moment later.
  if (fits(bytes)) return true;
  *coming = freed >= short_by;
  return false;
}

template <typename Held>
std::vector<PoolHolding> BasicWarmPool<Held>::holdings(const std::string& pool) {
  std::lock_guard lock(mutex_);
  std::vector<PoolHolding> found;
  for (const auto& [language, slot] : slots_) {
    PoolHolding holding{pool, language, slot.waiting.size(), slot.opening, 0, slot.each};
    for (const auto& waiting : slot.waiting) holding.bytes += waiting.bytes;
    found.push_back(std::move(holding));
  }
  return found;
}

template <typename Held>
std::pair<const std::string, typename BasicWarmPool<Held>::Slot>* BasicWarmPool<Held>::wanting(
    std::chrono::steady_clock::time_point* later) {
  auto now = std::chrono::steady_clock::now();
  for (auto& entry : slots_) {
    Slot& slot = entry.second;
    if (slot.failed || slot.waiting.size() + slot.opening >= slot.wanted) continue;
    auto due = std::max(slot.not_before, slot.budget_retry);
    if (due <= now) return &entry;
    if (later != nullptr) *later = std::min(*later, due);
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
      retired_.push_back(std::move(slot.waiting.front()));
      slot.waiting.erase(slot.waiting.begin());
    }
    if (!slot.waiting.empty()) next = std::min(next, slot.waiting.front().made + kMaxWait);
  }
  return next;
}

template <typename Held>
std::unique_ptr<Held> BasicWarmPool<Held>::take(
    const std::string& language, const runtime::SandboxShape& shape,
    const std::optional<runtime::WarmInterpreter>& interpreter, const runtime::RunPlan& plan,
    std::chrono::steady_clock::duration patience) {
  if (per_language_ == 0) return nullptr;
  std::unique_ptr<Held> taken;
  {
    std::unique_lock lock(mutex_);
    retire_aged();
    // A call its language's interpreter cannot take runs cold, and the pool stays as it was for
    // the calls that can: only a new shape changes what it keeps.
    if (interpreter && !runtime::fits(*interpreter, plan)) {
      const auto found = slots_.find(language);
      if (found != slots_.end() && found->second.shape == shape) return nullptr;
    }
    Slot& slot = want(language, shape, interpreter);
    auto take_waiting = [&] {
      while (!slot.waiting.empty() && !taken) {
        Waiting youngest = std::move(slot.waiting.back());
        slot.waiting.pop_back();
        // One that died while it waited (killed from outside) is replaced, not used.
        if (youngest.sandbox->ended()) {
          retired_.push_back(std::move(youngest));
        } else {
          taken = std::move(youngest.sandbox);
        }
      }
    };
    if (!slot.interpreter || runtime::fits(*slot.interpreter, plan)) {
      take_waiting();
      if (!taken && patience > std::chrono::steady_clock::duration::zero() &&
          slot.opening > slot.awaited) {
        ++slot.awaited;
        std::uint64_t ended_before = slot.openings_ended;
        changed_.wait_for(lock, patience, [&] {
          return stopping_ || !slot.waiting.empty() || slot.openings_ended != ended_before;
        });
        --slot.awaited;
        // Of this shape still: another take() of another shape would have emptied it.
        if (!stopping_ && slot.shape == shape) take_waiting();
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
    // A call's sandbox: its memory was the call's, not the pool's.
    retired_.push_back({std::move(used), {}, 0});
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
        retired_.push_back(std::move(slot.waiting.front()));
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
      std::unique_ptr<Held> used = std::move(retired_.back().sandbox);
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
      // Woken by a change, or when the oldest waiting sandbox is due to be replaced, or a kind is
      // due to be opened (prepare()'s `after`, or the budget's next look: another pool's
      // sandboxes leaving frees room without waking this one).
      if (next_expiry == std::chrono::steady_clock::time_point::max()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, next_expiry);
      }
      continue;
    }
    // A promised opening is counted in held_bytes() already. reserve() counts the opening in
    // the same step as it checks the room, so that two pools cannot both take the last of it.
    std::uint64_t more = promised != nullptr ? 0 : wanting->second.each;
    if (memory_ != nullptr && !memory_->reserve(memory_place_, held_bytes(), more)) {
      // make_room releases the lock to ask the other pools: what was decided above is looked
      // at again from the top.
      bool coming = false;
      if (!make_room(wanting->second, more, lock, &coming)) {
        if (coming) {
          wanting->second.budget_retry = std::chrono::steady_clock::now() + kRoomComing;
          // What gave way here closes now (a promised opening keeps may_open true, and retired
          // ones otherwise close only when nothing is to be opened).
          while (!retired_.empty()) {
            std::unique_ptr<Held> gave_way = std::move(retired_.back().sandbox);
            retired_.pop_back();
            lock.unlock();
            gave_way.reset();
            lock.lock();
          }
        } else {
          refuse_for_budget(*wanting);
          if (promised != nullptr && wanting->second.promised > 0) {
            --wanting->second.promised;
            --wanting->second.opening;
          }
        }
      }
      publish();
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
    // Measured before it is counted: the other pools see it as its kind's last size meanwhile.
    std::uint64_t bytes = opened && measure_ ? measure_(**opened) : 0;
    lock.lock();
    auto found = slots_.find(language);  // std::map: the slot stays where it was
    Slot& slot = found->second;
    --slot.opening;
    if (!opened) {
      log(LogLevel::kWarning,
          "could not prepare a warm " + language +
              " sandbox (its calls run cold until the next one): " + opened.error().message);
      slot.failed = true;
      ++slot.openings_ended;
      changed_.notify_all();  // a take() may wait for it (take's patience)
      continue;
    }
    auto now = std::chrono::steady_clock::now();
    // Of another shape by now, or a session took the room while it opened: fit() retires only
    // the sandboxes already waiting, so one opening checks the room itself as it arrives. Only
    // one that would be kept makes room in the budget.
    bool keep = !stopping_ && slot.shape == shape && slot.interpreter == interpreter &&
                room_(count() - retired_.size());
    if (keep && memory_ != nullptr) {
      if (bytes > 0) {
        slot.each = bytes;
      } else if (!told_unmeasured_) {
        told_unmeasured_ = true;
        log(LogLevel::kWarning, "a waiting " + language + " " + noun_ +
                                    " could not be measured (/proc/PID/smaps_rollup): it counts "
                                    "nothing against --pool-memory");
      }
      // Room that is coming (what gave way is still closing) keeps it: it is open already, and
      // closing it would free nothing sooner.
      bool coming = false;
      bool room = make_room(slot, bytes, lock, &coming) || coming;
      if (!room) refuse_for_budget(*found);
      keep = room && !stopping_;
    }
    if (keep) {
      slot.waiting.push_back({std::move(*opened), now, bytes});
      slot.told_over_budget = false;
    } else {
      retired_.push_back({std::move(*opened), now, bytes});
    }
    ++slot.openings_ended;
    changed_.notify_all();  // a take() may wait for it (take's patience)
  }
}

template <typename Held>
void BasicWarmPool<Held>::refuse_for_budget(std::pair<const std::string, Slot>& entry) {
  Slot& slot = entry.second;
  slot.budget_retry = std::chrono::steady_clock::now() + kBudgetRetry;
  if (slot.told_over_budget) return;
  slot.told_over_budget = true;
  constexpr std::uint64_t kMiB = 1024 * 1024;
  log(LogLevel::kInfo,
      "the pools' memory budget (--pool-memory " + std::to_string(memory_->budget() / kMiB) +
          " MiB, " + std::to_string(memory_->held() / kMiB) +
          " MiB held) has no room for a waiting " + entry.first + " " + noun_ + " (" +
          std::to_string(slot.each / kMiB) + " MiB): none is kept until there is");
}

}  // namespace paddock::app
