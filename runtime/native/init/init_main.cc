// paddock-init: the sandbox's init, a small static program of paddock's own. paddock's child
// execs it right after clone (exec_sandbox_init), so the sandbox holds no copy of paddock's
// memory and shows no host command line. Its environment names two fds and nothing else: the
// channel to paddock (PADDOCK_INIT_CHANNEL_FD) and a memfd (PADDOCK_INIT_PLAN_FD) into which
// paddock writes the plan while this program starts, and which it seals before it says go.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "runtime/native/init/child.h"
#include "runtime/native/init/init_plan.h"

namespace {

int fd_variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? -1 : std::atoi(value);
}

// The whole plan, or nothing if the memfd is not sealed: then paddock never finished it.
std::string read_plan(int fd) {
  struct stat info {};
  int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & paddock::init::kPlanSeals) != paddock::init::kPlanSeals) return {};
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
  int fd = fd_variable("PADDOCK_INIT_PLAN_FD");
  if (fd < 0) return 125;
  // Die with paddock; wait_for_go sees its end of file if it died before this line.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  int channel = fd_variable("PADDOCK_INIT_CHANNEL_FD");
  if (channel < 0) return 125;
  paddock::init::wait_for_go(channel);
  std::string bytes = read_plan(fd);
  close(fd);
  auto decoded = paddock::init::decode_child_plan(bytes);
  if (decoded == nullptr) {
    // Most likely a paddock-init left from another build beside this paddock, or the reverse.
    paddock::init::send(channel, paddock::init::ChildMessage{
                                     paddock::init::ChildMessageKind::kSetupFailed,
                                     paddock::init::SetupPhase::kInitPlan, 0, EPROTO, 0, 0});
    return 125;
  }
  paddock::init::ChildPlan& plan = decoded->plan;
  // paddock kept none of 0, 1 and 2 open for us. Filled, no socket or file made later can land
  // there, where each step's standard streams will be put over it.
  for (int stdio = 0; stdio < 3; ++stdio) {
    if (fcntl(stdio, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_CLOEXEC) != stdio) return 125;
  }
  for (int kept : {plan.fds.channel, plan.fds.stdin_fd, plan.fds.stdout_fd, plan.fds.stderr_fd}) {
    fcntl(kept, F_SETFD, FD_CLOEXEC);
  }
  paddock::init::run_sandbox_init(plan);
}
