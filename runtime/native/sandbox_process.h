#pragma once

// The sandbox's outermost process (paddock-init's relay) as paddock owns it: its pid and a pidfd.
// Move-only. Destroying a process that was not reaped kills it with SIGKILL (which takes its
// PID namespace, and so the whole sandbox, down) and reaps it: no error path can leave a
// sandbox running or a zombie behind.

#include <sys/resource.h>
#include <sys/types.h>

#include "core/unique_fd.h"

namespace paddock::native {

class SandboxProcess {
 public:
  SandboxProcess() = default;
  SandboxProcess(pid_t pid, core::UniqueFd pidfd) : pid_(pid), pidfd_(std::move(pidfd)) {}
  SandboxProcess(SandboxProcess&& other) noexcept;
  SandboxProcess& operator=(SandboxProcess&& other) noexcept;
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;
  ~SandboxProcess() { kill_and_reap(); }

  // The pid as the host sees it; -1 once reaped, when the number may be someone else's.
  [[nodiscard]] pid_t pid() const { return pid_; }
  // Readable once the process has exited (poll it beside other fds).
  [[nodiscard]] int pidfd() const { return pidfd_.get(); }
  [[nodiscard]] bool running() const { return pid_ > 0; }

  // SIGKILL through the pidfd, so a reaped and reused pid can never be hit; 0 or -1 with errno.
  int kill() const;
  // Waits for the exit (retrying on EINTR) and returns the wait status; `usage` gets the
  // resources of the process and every child it reaped.
  int wait(rusage* usage = nullptr);
  // kill() then wait(); nothing when already reaped.
  void kill_and_reap();

 private:
  pid_t pid_ = -1;
  core::UniqueFd pidfd_;
};

}  // namespace paddock::native
