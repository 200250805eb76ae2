#include "cli/stdin_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <cerrno>

namespace paddock::cli {
namespace {

bool safe_to_share(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return false;
  return S_ISREG(info.st_mode) || S_ISFIFO(info.st_mode);
}

// Copies `source` into `sink` until end-of-file, an error, or `wake` becomes readable (its
// write end was closed). Closes `sink`, so the program sees end-of-file.
void relay(int source, core::UniqueFd sink, core::UniqueFd wake) {
  char buffer[4096];
  for (;;) {
    pollfd fds[2] = {{source, POLLIN, 0}, {wake.get(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    ssize_t got = read(source, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    for (ssize_t done = 0; done < got;) {
      // The program may never read: a full pipe blocks only this thread, until stop().
      pollfd out[2] = {{sink.get(), POLLOUT, 0}, {wake.get(), POLLIN, 0}};
      if (poll(out, 2, -1) < 0 && errno != EINTR) return;
      if (out[1].revents != 0 || (out[0].revents & (POLLERR | POLLHUP)) != 0) return;
      if ((out[0].revents & POLLOUT) == 0) continue;
      ssize_t wrote = write(sink.get(), buffer + done, static_cast<std::size_t>(got - done));
      if (wrote < 0 && errno != EINTR && errno != EAGAIN) return;
      if (wrote > 0) done += wrote;
    }
  }
}

}  // namespace

core::Result<StdinRelay> StdinRelay::start(int source) {
  StdinRelay relay_handle;
  relay_handle.source_ = source;
  if (safe_to_share(source)) return relay_handle;
  int data[2], wake[2];
  if (pipe2(data, O_CLOEXEC) != 0) return core::system_error("creating the stdin relay pipe");
  core::UniqueFd read_end(data[0]), write_end(data[1]);
  if (pipe2(wake, O_CLOEXEC) != 0) return core::system_error("creating the stdin relay pipe");
  core::UniqueFd wake_read(wake[0]);
  relay_handle.wake_write_.reset(wake[1]);
  // Non-blocking, so that a program that never reads cannot hold the relay past stop().
  fcntl(write_end.get(), F_SETFL, O_NONBLOCK);
  relay_handle.read_end_ = std::move(read_end);
  relay_handle.relayed_ = true;
  relay_handle.thread_ = std::thread(relay, source, std::move(write_end), std::move(wake_read));
  return relay_handle;
}

void StdinRelay::stop() {
  wake_write_.reset();
  if (thread_.joinable()) thread_.join();
}

}  // namespace paddock::cli
