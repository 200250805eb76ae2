// The payload process: init's way of starting one (sharing its memory or forked) and what the
// process does before its exec.
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "runtime/native/init/child_parts.h"
#include "runtime/native/init/process_domain.h"

namespace paddock::init {
namespace child_parts {
namespace {

void sort_fds(int* fds, int count) {
  for (int i = 1; i < count; ++i) {
    for (int j = i; j > 0 && fds[j - 1] > fds[j]; --j) {
      int swap = fds[j];
      fds[j] = fds[j - 1];
      fds[j - 1] = swap;
    }
  }
}

// execve, looking argv[0] up in the sandbox's PATH like execvp, without allocating.
int exec_program(const ChildPlan& plan, char* const* argv, char* const* envp) {
  const char* name = argv[0];
  if (std::strchr(name, '/') != nullptr) {
    execve(name, argv, envp);
    return errno;
  }
  int error = ENOENT;
  char path[PATH_MAX];
  for (const char* dir : *plan.search_path) {
    std::size_t dir_length = std::strlen(dir), name_length = std::strlen(name);
    if (dir_length + 1 + name_length + 1 > sizeof path) continue;
    std::memcpy(path, dir, dir_length);
    path[dir_length] = '/';
    std::memcpy(path + dir_length + 1, name, name_length + 1);
    execve(path, argv, envp);
    if (errno == E2BIG || errno == ENOMEM) return errno;     // would fail the same way anywhere
    if (errno != ENOENT && errno != ENOTDIR) error = errno;  // e.g. EACCES: remember, go on
  }
  return error;
}

struct PayloadStart {
  const ChildPlan* plan;
  const PayloadCommand* command;
};

int run_payload_on_own_stack(void* start) {
  auto* payload = static_cast<const PayloadStart*>(start);
  run_payload(*payload->plan, *payload->command);
}

// Whether init has no child at all, dead or alive. Every orphan is init's, so then nothing else
// of the sandbox runs, and nothing can stop a spawned child before its exec. ("No resident" is
// not enough: a resident that exited may have left a child behind.)
bool nothing_else_runs() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 && errno == ECHILD;
}

}  // namespace
}  // namespace child_parts

using namespace child_parts;

// With close_range where the kernel has it and one close() per possible fd otherwise.
void close_all_except(const int* keep, int count, bool at_exec) {
  unsigned next = 0;
  for (int i = 0; i <= count; ++i) {
    unsigned last = i < count ? static_cast<unsigned>(keep[i]) : ~0u;
    if (last > next) {
      if ((!at_exec || syscall(SYS_close_range, next, last - 1, CLOSE_RANGE_CLOEXEC) != 0) &&
          syscall(SYS_close_range, next, last - 1, 0) != 0) {
        rlim_t limit = 65536;
        rlimit current{};
        if (getrlimit(RLIMIT_NOFILE, &current) == 0 && current.rlim_cur < limit) {
          limit = current.rlim_cur;
        }
        for (unsigned fd = next; fd < last && fd < limit; ++fd) close(static_cast<int>(fd));
      }
    }
    if (i < count) next = static_cast<unsigned>(keep[i]) + 1;
  }
}

[[noreturn]] void run_payload(const ChildPlan& plan, const PayloadCommand& command) {
  int channel = plan.fds.channel;
  // Into init's memory when it waits for the answer, else on the channel. (drop_privileges and
  // install_filter report on the channel: in a spawned child the first has nothing left to do,
  // and the second fails only without memory.)
  auto stop = [&](SetupPhase phase, int error, int detail = 0) {
    if (command.failure != nullptr) {
      *command.failure = PayloadFailure{phase, error};
      _exit(127);
    }
    fail(channel, phase, error, detail);
  };
  if (setsid() < 0) stop(SetupPhase::kStdio, errno);
  // The call's channel takes fd 3, or fds 4 and 5 (PayloadCommand::call_fd): init's channel
  // (which the exec closes) moves out of their way first, and the channel's fds above them and
  // the streams' numbers before any is taken.
  bool pipes = command.answer_fd >= 0;
  int call_at = pipes ? 4 : 3;
  int call_fd = -1, answer_fd = -1;
  if (command.call_fd >= 0) {
    if (channel <= 5) channel = fcntl(channel, F_DUPFD_CLOEXEC, 6);
    call_fd = fcntl(command.call_fd, F_DUPFD_CLOEXEC, 6);
    if (pipes) answer_fd = fcntl(command.answer_fd, F_DUPFD_CLOEXEC, 6);
    if (channel < 0 || call_fd < 0 || (pipes && answer_fd < 0)) stop(SetupPhase::kStdio, errno);
  }
  if (dup2(command.stdin_fd, STDIN_FILENO) < 0 || dup2(command.stdout_fd, STDOUT_FILENO) < 0 ||
      dup2(command.stderr_fd, STDERR_FILENO) < 0 || (call_fd >= 0 && dup2(call_fd, call_at) < 0) ||
      (answer_fd >= 0 && dup2(answer_fd, 5) < 0)) {
    stop(SetupPhase::kStdio, errno);
  }
  int keep[] = {0, 1, 2, channel, call_fd >= 0 ? call_at : channel, answer_fd >= 0 ? 5 : channel};
  sort_fds(keep, 6);
  close_all_except(keep, 6);
  umask(022);
  if (chdir(plan.cwd) != 0) stop(SetupPhase::kWorkdir, errno);
  for (std::size_t i = 0; i < plan.rlimits->size(); ++i) {
    const runtime::RlimitSetting& setting = (*plan.rlimits)[i];
    rlimit value{setting.value, setting.hard};
    if (setrlimit(setting.resource, &value) != 0) {
      stop(SetupPhase::kRlimit, errno, static_cast<int>(i));
    }
  }
  // Default dispositions, then an empty mask, whatever paddock's own were: no handler of init's
  // can run here, where init's memory may be shared (spawn_payload).
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  drop_privileges(plan);  // with no_new_privs, which Landlock needs of an unprivileged process
  if (command.domain != ProcessDomain::kShared) {
    int error = enter_own_process_domain();
    if (error != 0 && command.domain == ProcessDomain::kOwn)
      stop(SetupPhase::kProcessDomain, error);
  }
  if (!program_filter_inherited) install_filter(plan, plan.seccomp);
  int error = exec_program(plan, command.argv, command.envp);
  if (command.failure != nullptr) stop(SetupPhase::kExec, error);
  send(channel,
       ChildMessage{ChildMessageKind::kExecFailed, SetupPhase::kExec, 0, error, 0, command.step});
  _exit(127);
}

pid_t spawn_payload(const ChildPlan& plan, const PayloadCommand& command) {
  // With privileges still held, run_payload would drop them and mark init's own memory so.
  if (!privileges_dropped || !nothing_else_runs()) {
    // fork, not clone3: the program's filter, which init runs under, refuses clone3. A copy
    // has no way back into init's memory: its exec failure goes on the channel.
    PayloadCommand forked = command;
    forked.failure = nullptr;
    pid_t payload = fork();
    if (payload == 0) run_payload(plan, forked);
    return payload < 0 ? -errno : payload;
  }
  // The legacy clone, not clone3, for the same reason. Measured against the fork: see
  // docs/benchmarks.md.
  if (command.failure != nullptr) *command.failure = PayloadFailure{};
  PayloadStart start{&plan, &command};
  pid_t payload = spawn_sharing_memory(run_payload_on_own_stack, &start, 0, nullptr);
  if (payload < 0) return -errno;
  // The clone returns once the child has exec'd or exited, so the slot is final.
  if (command.failure != nullptr && command.failure->error != 0) {
    while (waitpid(payload, nullptr, __WALL) < 0 && errno == EINTR) {
    }
    return -command.failure->error;
  }
  return payload;
}

}  // namespace paddock::init
