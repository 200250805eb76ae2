#pragma once

// Warm sandboxes for fresh execute_code calls: sandboxes set up in the background (namespaces,
// mounts, limits, filter), each waiting for one call. A call takes one of its shape
// (runtime/warm_run.h), runs in it, and gives it back to be closed; it is never used twice.
//
// The pool keeps `per_language` sandboxes waiting for each language that has had a fresh call
// (or was prepared), of the shape its last eligible call had; a call of another shape runs cold
// and the language's sandboxes are made in the new shape from then on. Opening and closing
// happen on the pool's own thread, off the calls' path: none is opened while a warm call is in
// flight, until its answer is ready to go out (CallInFlight), and a call that finds its sandbox
// half-opened waits for it (kOpeningWait at most).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "runtime/sandbox_shape.h"
#include "runtime/session.h"

namespace paddock::mcp {

class WarmPool {
 public:
  using Opener = std::function<Result<std::unique_ptr<Session>>(const SandboxShape& shape)>;
  // Whether the server's limits leave room for one more sandbox, given the pool's own count.
  using Room = std::function<bool(std::size_t pool_sandboxes)>;

  // With `per_language` 0 the pool holds nothing and take() always misses.
  WarmPool(std::size_t per_language, Opener open, Room room);
  // Stops filling and closes every sandbox the pool holds.
  ~WarmPool();
  WarmPool(const WarmPool&) = delete;
  WarmPool& operator=(const WarmPool&) = delete;

  // A sandbox of `shape` that has run nothing, or null when none waits. From now on the pool
  // keeps sandboxes of this shape waiting for `language`.
  std::unique_ptr<Session> take(const std::string& language, const SandboxShape& shape);
  // Starts keeping sandboxes of `shape` waiting for `language` (the default language at start).
  void prepare(const std::string& language, const SandboxShape& shape);
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

  // How long a sandbox may wait. What it learned of the host when it was made (the host's own
  // addresses, which its network fence and egress proxy refuse) is at most this old when its call
  // comes; a cold run holds its own for as long as it runs.
  static constexpr std::chrono::seconds kMaxWait{30};
  // How long a call waits for a sandbox of its shape that is being opened before it runs cold.
  // An opening takes about 5 ms on an idle machine, but ten times that on a loaded one, and is
  // always nearer its end than a cold start would be (which does the same work from the
  // beginning, on a core the opening is using); the bound is for an opening that hangs.
  static constexpr std::chrono::milliseconds kOpeningWait{500};

 private:
  struct Waiting {
    std::unique_ptr<Session> sandbox;
    std::chrono::steady_clock::time_point made;
  };
  struct Slot {
    SandboxShape shape;
    std::vector<Waiting> waiting;  // oldest first
    std::size_t opening = 0;       // being opened, or promised
    // Of `opening`, those promised when the last call in flight ended and not yet started: a
    // call that comes at once counts on them as on one being opened, instead of finding none
    // because the pool's thread had not woken yet.
    std::size_t promised = 0;
    std::size_t awaited = 0;  // calls waiting in take() for one being opened
    // Opening failed (an image removed, a limit reached): tried again at the next take().
    bool failed = false;
  };

  // Sets the shape `language` wants, dropping sandboxes of another (and saying so in
  // `reshaped`). Called with mutex_ held.
  Slot& want(const std::string& language, const SandboxShape& shape, bool* reshaped = nullptr);
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
