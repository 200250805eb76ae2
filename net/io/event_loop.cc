#include "net/io/event_loop.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace paddock::net::io {
namespace {

// Long enough to cost nothing; short enough that a clock that jumped is seen again soon.
constexpr std::int64_t kLongestWaitMs = 60'000;

}  // namespace

core::Result<EventLoop> EventLoop::create() {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return core::system_error("making an event loop's wake pipe");
  }
  EventLoop loop;
  loop.wake_read_.reset(pipe_fds[0]);
  loop.wake_write_.reset(pipe_fds[1]);
  return loop;
}

void EventLoop::wake() const {
  char byte = 1;
  [[maybe_unused]] ssize_t ignored = write(wake_write_.get(), &byte, 1);
}

void EventLoop::begin_turn() {
  polled_.clear();
  handlers_.clear();
  polled_.push_back({wake_read_.get(), POLLIN, 0});
  handlers_.emplace_back();
  wake_by_ = Clock::time_point::max();
}

void EventLoop::watch(int fd, short events, Handler handler) {
  if (fd < 0 || events == 0) return;
  polled_.push_back({fd, events, 0});
  handlers_.push_back(std::move(handler));
}

void EventLoop::wake_by(Clock::time_point when) {
  wake_by_ = std::min(wake_by_, when);
}

bool EventLoop::wait(std::unique_lock<std::mutex>* held) {
  int timeout = -1;
  if (wake_by_ != Clock::time_point::max()) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(wake_by_ - Clock::now()).count();
    timeout = static_cast<int>(std::clamp<std::int64_t>(left, 0, kLongestWaitMs));
  }
  if (held != nullptr) held->unlock();
  int ready = poll(polled_.data(), polled_.size(), timeout);
  int error = errno;
  if (held != nullptr) held->lock();
  if (ready < 0) {
    for (auto& item : polled_) item.revents = 0;
    return error == EINTR;
  }
  if (polled_[0].revents != 0) {
    char drained[64];
    while (read(wake_read_.get(), drained, sizeof drained) > 0) {
    }
  }
  return true;
}

void EventLoop::dispatch() {
  for (std::size_t i = 1; i < polled_.size(); ++i) {
    if (polled_[i].revents != 0) handlers_[i](polled_[i].revents);
  }
}

}  // namespace paddock::net::io
