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

#include "core/result.h"
#include "runtime/sandbox_shape.h"
#include "runtime/run_plan.h"
#include "runtime/session.h"
#include "runtime/warm_interpreter.h"

namespace paddock::mcp {

class WarmPool {
 public:
  using Opener = std::function<Result<std::unique_ptr<Session>>(
      const SandboxShape& shape, const std::optional<WarmInterpreter>& interpreter)>;
  // Whether the server's limits leave room for one more sandbox, given the pool's own count.
  using Room = std::function<bool(std::size_t pool_sandboxes)>;

  // With `per_language` 0 the pool holds nothing and take() always misses.
  WarmPool(std::size_t per_language, Opener open, Room room);
  // Stops filling and closes every sandbox the pool holds.
  ~WarmPool();
  WarmPool(const WarmPool&) = delete;
  WarmPool& operator=(const WarmPool&) = delete;

  // A sandbox of `shape` that has run nothing, or null when none waits. From now on the pool
  // keeps sandboxes of this shape, with `interpreter` started in each, waiting for `language`.
  // Null too when `plan` cannot run on the interpreter the waiting ones hold.
  std::unique_ptr<Session> take(const std::string& language, const SandboxShape& shape,
                                const std::optional<WarmInterpreter>& interpreter,
                                const RunPlan& plan);
  // Starts keeping sandboxes of `shape` waiting for `language` (the default language at start).
  void prepare(const std::string& language, const SandboxShape& shape,
               const std::optional<WarmInterpreter>& interpreter);
  // Closes a sandbox that served its call, on the pool's thread.
  void retire(std::unique_ptr<Session> used);
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
    explicit CallInFlight(WarmPool& pool);
    ~CallInFlight();
    CallInFlight(const CallInFlight&) = delete;
    CallInFlight& operator=(const CallInFlight&) = delete;

   private:
    WarmPool& pool_;
  };

  // How long a sandbox with a network may wait. What it learned of the host when it was made
  // (the host's own addresses, which its network fence and egress proxy refuse) is at most this
  // old when its call comes; a cold run holds its own for as long as it runs. A sandbox without
  // one learned nothing of the host that can age, and waits as long as the server runs (a warm
  // interpreter's preload costs a second or more of CPU each time it is made again).
  static constexpr std::chrono::seconds kMaxWait{30};

 private:
  struct Waiting {
    std::unique_ptr<Session> sandbox;
    std::chrono::steady_clock::time_point made;
  };
  struct Slot {
    SandboxShape shape;
    std::optional<WarmInterpreter> interpreter;
    std::vector<Waiting> waiting;  // oldest first
    std::size_t opening = 0;       // being opened, or promised
    // Of `opening`, those promised when the last call in flight ended and not yet started: the
    // pool's thread opens them even if another call is in flight by the time it wakes.
    std::size_t promised = 0;
    // Opening failed (an image removed, a limit reached): tried again at the next take().
    bool failed = false;
  };

  // Sets the shape (and interpreter) `language` wants, dropping sandboxes of another. Called
  // with mutex_ held.
  Slot& want(const std::string& language, const SandboxShape& shape,
             const std::optional<WarmInterpreter>& interpreter);
  [[nodiscard]] std::size_t count() const;  // with mutex_ held: waiting, opening and retired
  // The first language with fewer sandboxes waiting or opening than it wants (and not failed),
  // or null; with mutex_ held.
  std::pair<const std::string, Slot>* wanting();
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
  std::vector<std::unique_ptr<Session>> retired_;
  std::size_t calls_in_flight_ = 0;  // CallInFlight
  bool stopping_ = false;
  std::thread filler_;
};

}  // namespace paddock::mcp
