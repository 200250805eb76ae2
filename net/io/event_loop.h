#pragma once

// The one event loop of paddock's sockets, for both directions: the egress proxy's (a
// sandbox's connections out, net/egress/proxy.h) and the preview forwarder's (the host's
// connections in, net/preview/forwarder.h). One thread runs it over nonblocking descriptors,
// so that a sandbox that opens many connections costs the server no thread per connection.
//
// Each turn, its owner lists what it waits for (watch, wake_by), wait() polls until one of
// them is ready, the soonest deadline passes or another thread calls wake(), and dispatch()
// runs the handler of each ready descriptor in the order they were watched. The list is built
// afresh every turn: what a connection waits for changes with each step it takes.
//
// poll(), not epoll: a loop watches at most a few hundred descriptors, and rebuilding that list
// each turn costs less than keeping an epoll set in step with every change of what a
// connection waits for.

#include <poll.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::net::io {

using Clock = std::chrono::steady_clock;

class EventLoop {
 public:
  // `revents` as poll reported them.
  using Handler = std::function<void(short revents)>;

  // A loop and the pipe that wakes it; the error when no descriptor is left for the pipe.
  static core::Result<EventLoop> create();

  // From any thread: the wait in progress, or the next one, returns at once.
  void wake() const;

  // Starts a turn's list: nothing watched, no deadline.
  void begin_turn();
  // Watches `fd` for `events` this turn. A side with nothing to wait for is left out: poll
  // reports a hang-up even unasked, and one that cannot be acted on yet would wake the loop at
  // once, turn after turn.
  void watch(int fd, short events, Handler handler);
  // This turn's wait ends by `when` at the latest.
  void wake_by(Clock::time_point when);

  // Waits for this turn's descriptors, its deadline or a wake(), with `held` let go meanwhile
  // when it is given (the owner's state is shared with other threads). False when poll failed
  // for another reason than a signal.
  bool wait(std::unique_lock<std::mutex>* held = nullptr);
  // Runs the handler of each descriptor found ready, in the order watched.
  void dispatch();

 private:
  EventLoop() = default;

  core::UniqueFd wake_read_, wake_write_;
  std::vector<pollfd> polled_;  // the wake pipe first
  std::vector<Handler> handlers_;
  Clock::time_point wake_by_ = Clock::time_point::max();
};

}  // namespace paddock::net::io
