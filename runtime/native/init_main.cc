// paddock-init: the sandbox's init, a small static program of paddock's own. paddock's child
// execs it right after clone (exec_sandbox_init), so the sandbox holds no copy of paddock's
// memory and shows no host command line; the plan arrives in a memfd named by
// PADDOCK_INIT_PLAN_FD (the only variable in its environment).

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "runtime/native/child.h"
#include "runtime/native/init_plan.h"

namespace {

std::string read_plan(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return {};
  std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (got <= 0) return {};
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

}  // namespace

int main() {
  // What the program may read of its PID 1: the name, not the host path of this file.
  prctl(PR_SET_NAME, "paddock-init", 0, 0, 0);
  const char* plan_fd = std::getenv("PADDOCK_INIT_PLAN_FD");
  if (plan_fd == nullptr) return 125;
  int fd = std::atoi(plan_fd);
  std::string bytes = read_plan(fd);
  close(fd);
  auto decoded = paddock::decode_child_plan(bytes);
  if (decoded == nullptr) {
    // Most likely a paddock-init left from another build beside a new paddock.
    paddock::send(paddock::plan_channel(bytes),
                  paddock::ChildMessage{paddock::ChildMessageKind::kSetupFailed,
                                        paddock::SetupPhase::kInitPlan, 0, EPROTO, 0, 0});
    return 125;
  }
  paddock::ChildPlan& plan = decoded->plan;
  // paddock kept none of 0, 1 and 2 open for us. Filled, no socket or file made later can land
  // there, where each step's standard streams will be put over it.
  for (int stdio = 0; stdio < 3; ++stdio) {
    if (fcntl(stdio, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_CLOEXEC) != stdio) return 125;
  }
  for (int kept : {plan.fds.channel, plan.fds.stdin_fd, plan.fds.stdout_fd, plan.fds.stderr_fd}) {
    fcntl(kept, F_SETFD, FD_CLOEXEC);
  }
  plan.no_capabilities = cap_init();
  if (plan.no_capabilities == nullptr) return 125;
  paddock::run_sandbox_init(plan);
}
