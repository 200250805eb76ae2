#include "runtime/native/sandbox_process.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace paddock::native {

SandboxProcess::SandboxProcess(SandboxProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pidfd_(std::move(other.pidfd_)) {}

SandboxProcess& SandboxProcess::operator=(SandboxProcess&& other) noexcept {
  if (this != &other) {
    kill_and_reap();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::move(other.pidfd_);
  }
  return *this;
}

int SandboxProcess::kill() const {
  if (!pidfd_.valid()) {
    errno = ESRCH;
    return -1;
  }
  return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0));
}

int SandboxProcess::wait(rusage* usage) {
  int status = 0;
  if (pid_ <= 0) return status;
  while (wait4(pid_, &status, __WALL, usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

void SandboxProcess::kill_and_reap() {
  if (pid_ <= 0) return;
  (void)kill();
  (void)wait();
}

}  // namespace paddock::native
