// A one-off run's steps inside the sandbox: started one after another, each reaped with every
// process it left, the caller's late files written between two.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

#include "core/write_all.h"
#include "runtime/native/init/child_parts.h"

namespace paddock::init {

void wait_for_go(int channel) {
  ChildMessage message;
  ssize_t got;
  while ((got = read(channel, &message, sizeof message)) < 0 && errno == EINTR) {
  }
  // EOF: the parent died or gave up before writing the maps.
  if (got != sizeof message || message.kind != ChildMessageKind::kGo) _exit(125);
}

namespace child_parts {
namespace {

// The caller's files, written as the sandbox user beneath the work directory (nothing the
// installer left there, a symlink say, can send them elsewhere). A failure ends the run.
void write_late_files(const ChildPlan& plan) {
  static char path[PATH_MAX];  // static: init's stack is a copy of the parent's and may be small
  int channel = plan.fds.channel;
  int work = openat(AT_FDCWD, plan.workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);  // as start_step
  if (work < 0) fail(channel, SetupPhase::kLateFile, errno, -1);
  for (std::size_t i = 0; i < plan.late_files->size(); ++i) {
    const LateFile& file = (*plan.late_files)[i];
    std::size_t length = std::strlen(file.path);
    if (length + 1 > sizeof path) fail(channel, SetupPhase::kLateFile, ENAMETOOLONG, int(i));
    std::memcpy(path, file.path, length + 1);
    int fd = open_for_write(work, path);
    if (fd < 0) fail(channel, SetupPhase::kLateFile, -fd, static_cast<int>(i));
    if (int error = core::write_all(fd, std::string_view(file.content, file.size)); error != 0) {
      fail(channel, SetupPhase::kLateFile, error, static_cast<int>(i));
    }
    fchmod(fd, static_cast<mode_t>(file.mode));
    close(fd);
  }
  close(work);
}

// Runs the steps one after another, reaping every orphan meanwhile, and reports the wait status

}  // namespace

pid_t start_step(const ChildPlan& plan, std::size_t step) {
  // Only the program reads the caller's stdin and writes its stdout: an installer or compiler
  // before it gets an empty stdin, and its chatter goes to stderr.
  bool program = step + 1 == plan.steps->size();
  // openat, not open: init may run under a caller's profile plus the calls init_calls() lists
  // (prepared_run.cc), and musl's open() is the open system call, glibc's openat.
  int stdin_fd = program ? plan.fds.stdin_fd : openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
  if (stdin_fd < 0) fail(plan.fds.channel, SetupPhase::kStdio, errno);
  pid_t payload = spawn_payload(
      plan, PayloadCommand{(*plan.steps)[step], plan.envp, stdin_fd,
                           program ? plan.fds.stdout_fd : plan.fds.stderr_fd, plan.fds.stderr_fd,
                           -1, -1, static_cast<std::int32_t>(step)});
  if (!program) close(stdin_fd);
  if (payload < 0) fail(plan.fds.channel, SetupPhase::kSpawnPayload, -payload);
  if (step + 1 == plan.steps->size()) {
    // No step left to hand them to: once the sandbox's processes close theirs, paddock sees EOF.
    close(plan.fds.stdin_fd);
    close(plan.fds.stdout_fd);
    close(plan.fds.stderr_fd);
  }
  return payload;
}

// of the last step that ran: the program's, or the first prelude command that did not exit 0.
// These are a one-off run's RunPlan steps as the host encoded them (prepared_run.cc); the same
// rules on the host, for a sandbox that stays, are runtime/step_runner.cc's. This one runs inside
// the sandbox, where nothing may allocate, so the two cannot be one function.
// Nothing a step started outlives it: an installer ran with network and the caller's registry
// packages, and none of that may reach into the program's step.
[[noreturn]] void run_steps(const ChildPlan& plan, std::size_t step, pid_t payload) {
  int channel = plan.fds.channel;
  for (;;) {
    int status = 0;
    pid_t pid = wait4(-1, &status, __WALL, nullptr);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) _exit(125);  // no child left without a payload exit: cannot happen
    if (pid != payload) continue;
    bool last = step + 1 == plan.steps->size();
    if (last || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      send(channel, ChildMessage{ChildMessageKind::kPayloadExited, SetupPhase::kExec, 0, 0, status,
                                 static_cast<std::int32_t>(step)});
      // Leaving kills every other process of the PID namespace.
      _exit(0);
    }
    kill_and_reap_all();
    if (++step == plan.pause_before_step) {
      send(channel, ChildMessage{ChildMessageKind::kStepBoundary, SetupPhase::kExec, 0, 0, 0,
                                 static_cast<std::int32_t>(step)});
      wait_for_go(channel);
    }
    if (step == plan.late_files_step) write_late_files(plan);
    payload = start_step(plan, step);
  }
}

}  // namespace child_parts

void kill_and_reap_all() {
  // kill(-1) reaches every process of the PID namespace but init, the caller.
  kill(-1, SIGKILL);
  for (;;) {
    pid_t reaped = wait4(-1, nullptr, __WALL, nullptr);
    if (reaped > 0 || (reaped < 0 && errno == EINTR)) continue;
    break;  // ECHILD: init is alone
  }
}

}  // namespace paddock::init
