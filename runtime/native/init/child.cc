#include "runtime/native/init/child.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "core/write_all.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/init/init_relay.h"
#include "runtime/native/init/mount_applier.h"
#include "runtime/native/init/network_fence.h"
#include "runtime/native/init/process_domain.h"
#include "runtime/native/init/ucount_limits.h"

#ifndef SECBIT_NOROOT
#include <linux/securebits.h>
#endif

namespace paddock {

void send(int channel, const ChildMessage& message) {
  while (write(channel, &message, sizeof message) < 0 && errno == EINTR) {
  }
}

namespace {

[[noreturn]] void fail(int channel, SetupPhase phase, int error, int detail = 0) {
  send(channel, ChildMessage{ChildMessageKind::kSetupFailed, phase, detail, error, 0});
  _exit(125);
}

// The work directory as an O_PATH fd, passed with SCM_RIGHTS: buffers on the stack only.
void send_workdir(const ChildPlan& plan) {
  int fd = open(plan.workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(plan.fds.channel, SetupPhase::kMount, errno, -1);
  ChannelPacket packet;
  packet.message = ChildMessage{ChildMessageKind::kWorkdir, SetupPhase::kMount, 0, 0, 0, 0};
  packet.attach_fd(fd);
  while (sendmsg(plan.fds.channel, &packet.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  close(fd);
}

}  // namespace

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

// Set once this process (or the init it was forked from) has dropped everything: a later
// prelude step inherits that state, and without CAP_SETPCAP could not even repeat the drop.
bool privileges_dropped = false;
// Set once init runs under the program's own filter, which its steps then inherit.
bool program_filter_inherited = false;

}  // namespace

// Everything that can loosen or tighten privileges, in the order that keeps each step possible:
// no_new_privs first (it needs nothing), securebits while CAP_SETPCAP is still held, then every
// capability of all five sets. seccomp comes last, right before execve (install_seccomp).
void drop_privileges(const ChildPlan& plan) {
  if (privileges_dropped) return;
  int channel = plan.fds.channel;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(channel, SetupPhase::kNoNewPrivs, errno);
  // Even if root were ever mapped, it would not regain capabilities by setuid or exec.
  if (prctl(PR_SET_SECUREBITS,
            SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
                SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
            0, 0, 0) != 0) {
    fail(channel, SetupPhase::kCapabilities, errno, 1);
  }
  // Raw calls, not libcap: paddock-init links no C library but musl (init/CMakeLists.txt).
  // Reading the bounding set fails with EINVAL past the kernel's last capability.
  for (unsigned long cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      fail(channel, SetupPhase::kCapabilities, errno, 2);
    }
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
    fail(channel, SetupPhase::kCapabilities, errno, 3);
  }
  // Permitted, effective and inheritable all empty.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capset, &header, none) != 0) fail(channel, SetupPhase::kCapabilities, errno, 4);
  privileges_dropped = true;
}

namespace {

void install_filter(const ChildPlan& plan, const sock_fprog& filter) {
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter) != 0) {
    fail(plan.fds.channel, SetupPhase::kSeccomp, errno);
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

}  // namespace

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
  if (dup2(command.stdin_fd, STDIN_FILENO) < 0 || dup2(command.stdout_fd, STDOUT_FILENO) < 0 ||
      dup2(command.stderr_fd, STDERR_FILENO) < 0) {
    stop(SetupPhase::kStdio, errno);
  }
  int keep[] = {0, 1, 2, channel};
  sort_fds(keep, 4);
  close_all_except(keep, 4);
  umask(022);
  if (chdir(plan.cwd) != 0) stop(SetupPhase::kWorkdir, errno);
  for (std::size_t i = 0; i < plan.rlimits->size(); ++i) {
    const RlimitSetting& setting = (*plan.rlimits)[i];
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

void wait_for_go(int channel) {
  ChildMessage message;
  ssize_t got;
  while ((got = read(channel, &message, sizeof message)) < 0 && errno == EINTR) {
  }
  // EOF: the parent died or gave up before writing the maps.
  if (got != sizeof message || message.kind != ChildMessageKind::kGo) _exit(125);
}

namespace {

// Raw system calls, not glibc's wrappers: in a copy of a multi-threaded parent, glibc would try
// to apply the change to every thread it remembers (SIGSETXID) and wait for them forever.
void take_identity(const ChildPlan& plan) {
  int channel = plan.fds.channel;
  if (plan.setgroups_allowed && syscall(SYS_setgroups, 0, nullptr) != 0) {
    fail(channel, SetupPhase::kIdentity, errno, 1);
  }
  // root is not mapped in this namespace, so switching ids keeps init's capabilities.
  if (syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0) {
    fail(channel, SetupPhase::kIdentity, errno, 2);
  }
  if (syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0) {
    fail(channel, SetupPhase::kIdentity, errno, 3);
  }
  // Changing ids cleared the parent-death signal: set it now, and check that paddock did not
  // die in between (its end of the channel would be closed).
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  pollfd peer{channel, POLLIN, 0};
  if (poll(&peer, 1, 0) == 1 && (peer.revents & (POLLHUP | POLLERR)) != 0) _exit(125);
}

pid_t start_step(const ChildPlan& plan, std::size_t step) {
  // Only the program reads the caller's stdin and writes its stdout: an installer or compiler
  // before it gets an empty stdin, and its chatter goes to stderr.
  bool program = step + 1 == plan.steps->size();
  // openat, not open: init may run under a caller's profile plus the calls init_calls() lists
  // (prepared_run.cc), and musl's open() is the open system call, glibc's openat.
  int stdin_fd = program ? plan.fds.stdin_fd : openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
  if (stdin_fd < 0) fail(plan.fds.channel, SetupPhase::kStdio, errno);
  pid_t payload =
      spawn_payload(plan, PayloadCommand{(*plan.steps)[step], plan.envp, stdin_fd,
                                         program ? plan.fds.stdout_fd : plan.fds.stderr_fd,
                                         plan.fds.stderr_fd, static_cast<std::int32_t>(step)});
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
    if (int error = write_all(fd, std::string_view(file.content, file.size)); error != 0) {
      fail(channel, SetupPhase::kLateFile, error, static_cast<int>(i));
    }
    fchmod(fd, static_cast<mode_t>(file.mode));
    close(fd);
  }
  close(work);
}

// Runs the steps one after another, reaping every orphan meanwhile, and reports the wait status
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

}  // namespace

void kill_and_reap_all() {
  // kill(-1) reaches every process of the PID namespace but init, the caller.
  kill(-1, SIGKILL);
  for (;;) {
    pid_t reaped = wait4(-1, nullptr, __WALL, nullptr);
    if (reaped > 0 || (reaped < 0 && errno == EINTR)) continue;
    break;  // ECHILD: init is alone
  }
}

pid_t clone_process(unsigned long long flags, int* pidfd, int cgroup_fd) {
  clone_args args{};
  args.flags = flags;
  if (cgroup_fd >= 0) args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
  args.pidfd = reinterpret_cast<std::uint64_t>(pidfd);
  args.exit_signal = SIGCHLD;
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof args));
}

namespace {

int exec_sandbox_init_on_own_stack(void* exec) {
  exec_sandbox_init(*static_cast<const InitExec*>(exec));
}

struct PayloadStart {
  const ChildPlan* plan;
  const PayloadCommand* command;
};

int run_payload_on_own_stack(void* start) {
  auto* payload = static_cast<const PayloadStart*>(start);
  run_payload(*payload->plan, *payload->command);
}

}  // namespace

pid_t spawn_sharing_memory(int (*body)(void*), void* argument, unsigned long long flags,
                           int* pidfd) {
  if ((flags & (CSIGNAL | ~0x7fffffffULL)) != 0) {
    errno = EINVAL;
    return -1;
  }
  // What body uses is a few KB (run_payload's PATH walk included); the waiting caller's frame
  // holds it until the child has exec'd.
  alignas(16) char stack[64 * 1024];
  return clone(body, stack + sizeof stack,
               static_cast<int>(flags | CLONE_VM | CLONE_VFORK | SIGCHLD), argument, pidfd);
}

namespace {

// Whether init has no child at all, dead or alive. Every orphan is init's, so then nothing else
// of the sandbox runs, and nothing can stop a spawned child before its exec. ("No resident" is
// not enough: a resident that exited may have left a child behind.)
bool nothing_else_runs() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 && errno == ECHILD;
}

}  // namespace

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

pid_t spawn_sandbox_init(unsigned long long flags, int* pidfd, int cgroup_fd,
                         const InitExec& exec) {
  if (cgroup_fd >= 0) {
    // CLONE_INTO_CGROUP is clone3's alone: a fork, which copies paddock's page tables.
    pid_t pid = clone_process(flags | CLONE_INTO_CGROUP, pidfd, cgroup_fd);
    if (pid == 0) exec_sandbox_init(exec);
    return pid;
  }
  // Sharing paddock's memory until the exec saves, measured, 0.25 ms a start for the CLI and
  // 0.65 ms for a server's few hundred mappings. The child touches nothing of paddock's but
  // `exec`.
  return spawn_sharing_memory(exec_sandbox_init_on_own_stack, const_cast<InitExec*>(&exec), flags,
                              pidfd);
}

void exec_sandbox_init(const InitExec& exec) {
  // Closed by the exec, after it has let a waiting paddock go on (spawn_sandbox_init).
  close_all_except(exec.keep, exec.keep_count, true);
  // paddock made them close-on-exec; paddock-init gets them (it marks them so again).
  for (int i = 0; i < exec.keep_count; ++i) {
    if (exec.keep[i] != exec.program) fcntl(exec.keep[i], F_SETFD, 0);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // Every capability of the new user namespace survives exec only as an ambient one, because
  // the caller's id is not root there: inheritable first, then ambient, one at a time.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) fail(exec.channel, SetupPhase::kInitExec, errno, 1);
  for (auto& half : data) half.inheritable = half.permitted;
  if (syscall(SYS_capset, &header, data) != 0) fail(exec.channel, SetupPhase::kInitExec, errno, 2);
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) == 0) continue;
    if (errno == EINVAL) break;  // past the kernel's last capability
    fail(exec.channel, SetupPhase::kInitExec, errno, 3);
  }
  syscall(SYS_execveat, exec.program, "", exec.argv, exec.envp, AT_EMPTY_PATH);
  fail(exec.channel, SetupPhase::kInitExec, errno, 4);
}

namespace {

// `lo` up in the sandbox's own network namespace (it starts down), which gives it 127.0.0.1 and
// ::1, as bubblewrap and Docker do for "no network". 0 or an errno. Allocation-free.
int bring_loopback_up() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  ifreq request{};
  std::memcpy(request.ifr_name, "lo", 3);
  int error = 0;
  if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    error = errno;
  } else if ((request.ifr_flags & IFF_UP) == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) error = errno;
  }
  close(fd);
  return error;
}

// In init: the relay's pidfd while a late network is being made (ChildPlan::late_network).
int late_network_source = -1;

// In the relay, right after it forked init: the sandbox's network namespace, made while init
// builds the file system, with its loopback up. The kernel's work for a new network namespace
// (0.5-1 ms here) so runs beside the mount plan instead of before everything, in the clone.
// init is told it is made (or why not) and joins it through the relay's pidfd. The socket pair
// between the two was made in paddock's network namespace, where a socket of init's could be
// bound to an abstract name of the host's: a new pair, made in the sandbox's, replaces it, and
// init gets its end with the message. Returns the relay's end.
int make_late_network(int init_socket) {
  ChannelPacket made;
  made.message =
      ChildMessage{ChildMessageKind::kNetworkMade, SetupPhase::kNetworkNamespace, 1, 0, 0, 0};
  int pair[2] = {-1, -1};
  if (unshare(CLONE_NEWNET) != 0) {
    made.message.error = errno;
  } else if (int error = bring_loopback_up(); error != 0) {
    made.message.error = error;
  } else if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    made.message.error = errno;
  } else {
    made.attach_fd(pair[1]);
  }
  if (pair[1] < 0) made.header.msg_controllen = 0;
  // If init cannot hear it, it is gone, and so is the sandbox: the relay's loop sees that.
  while (sendmsg(init_socket, &made.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  if (pair[1] < 0) return init_socket;
  close(pair[1]);
  // The old pair stays open here: until init takes the new one, it reports a failure there, and
  // a hang-up on it means the relay died (take_identity checks for that).
  return pair[0];
}

// In init, with the file system built and privileges still held: joins the namespace the relay
// made, and takes the channel made in it. init was cloned into paddock's own network namespace,
// so nothing may run before this, and anything but a namespace made and joined ends the sandbox.
void join_late_network(int channel) {
  ChannelPacket made;
  ssize_t got;
  while ((got = recvmsg(channel, &made.header, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  // The channel the relay listens on from now on, so that a failure below reaches paddock.
  int fresh = got == sizeof made.message ? made.received_fd() : -1;
  if (fresh >= 0) {
    if (dup3(fresh, channel, O_CLOEXEC) < 0) fail(channel, SetupPhase::kNetworkNamespace, errno, 2);
    close(fresh);
  }
  if (got != sizeof made.message || made.message.kind != ChildMessageKind::kNetworkMade) {
    fail(channel, SetupPhase::kNetworkNamespace, got < 0 ? errno : EPROTO, 2);
  }
  if (made.message.error != 0) fail(channel, SetupPhase::kNetworkNamespace, made.message.error, 1);
  if (fresh < 0) fail(channel, SetupPhase::kNetworkNamespace, EPROTO, 2);
  if (setns(late_network_source, CLONE_NEWNET) != 0) {
    // Linux before 5.8 cannot join through a pidfd (EINVAL): a namespace of init's own, then,
    // made here on the start's path. Either way the program's is new and has only its loopback.
    if (errno != EINVAL) fail(channel, SetupPhase::kNetworkNamespace, errno, 3);
    if (unshare(CLONE_NEWNET) != 0) fail(channel, SetupPhase::kNetworkNamespace, errno, 3);
    if (int up = bring_loopback_up(); up != 0) fail(channel, SetupPhase::kLoopback, up);
  }
  close(late_network_source);
  late_network_source = -1;
}

}  // namespace

void run_sandbox_init(ChildPlan& plan) {
  int channel = plan.fds.channel;
  // paddock cloned the child with every signal blocked, and the mask outlives exec: no handler
  // ever runs in the relay or in init, and only SIGKILL (from paddock, outside) ends them.
  // Dumpable until now, as paddock's fork was, because paddock (without newuidmap) writes the id
  // maps into this process's /proc files, which a non-dumpable process's owner cannot open. No
  // code of the sandbox has run yet; from here on, neither half can be inspected.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // The program's processes get a PID namespace of their own, in which the relay below does not
  // exist: they cannot signal it, and it is the only process with a channel to paddock.
  if (unshare(CLONE_NEWPID) != 0) fail(channel, SetupPhase::kInitProcess, errno, 1);
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    fail(channel, SetupPhase::kInitProcess, errno, 2);
  }
  // With a late network, init joins this process's network namespace once it is made: through
  // a pidfd of the relay, taken before the fork (the relay is not in init's PID namespace).
  int relay = -1;
  if (plan.late_network) {
    relay = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
    if (relay < 0) fail(channel, SetupPhase::kNetworkNamespace, errno, 4);
  }
  pid_t init = fork();
  if (init < 0) fail(channel, SetupPhase::kInitProcess, errno, 3);
  if (init == 0) {
    close(pair[0]);
    plan.fds.channel = pair[1];
    late_network_source = relay;
    run_init(plan);
  }
  close(pair[1]);
  close(plan.fds.stdin_fd);
  close(plan.fds.stdout_fd);
  close(plan.fds.stderr_fd);
  int init_socket = pair[0];
  int init_before = -1;
  if (plan.late_network) {
    close(relay);
    init_socket = make_late_network(pair[0]);
    if (init_socket != pair[0]) init_before = pair[0];
  }
  take_identity(plan);
  drop_privileges(plan);
  relay_until_init_exits(channel, init_socket, init, init_before, plan.seccomp);
}

// The egress proxy's listening socket on the sandbox's 127.0.0.1:`port`, made here because only
// a process in the sandbox's network namespace can make it (an unprivileged parent cannot enter
// the namespace), and sent to the parent, whose proxy accepts on it from outside. 0 or an errno.
static int send_proxy_listener(int channel, std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int error = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(fd, 128) != 0) {
    error = errno;
  } else {
    ChannelPacket packet;
    packet.message =
        ChildMessage{ChildMessageKind::kProxyListener, SetupPhase::kLoopback, 0, 0, 0, 0};
    packet.attach_fd(fd);
    while (sendmsg(channel, &packet.header, MSG_NOSIGNAL) < 0) {
      if (errno != EINTR) {
        error = errno;
        break;
      }
    }
  }
  close(fd);
  return error;
}

// Installs the program's filter in its notify form and hands the listener to the relay, which
// answers each refusal with the errno form's own errno and counts it. False when the kernel
// gives no listener (before Linux 5.0, or EBUSY: a sandbox inside another sandbox whose filter
// already has one): the errno form then refuses alone, as without a relay. A listener that
// cannot reach the relay leaves every refused call failing with ENOSYS: refused all the same.
static bool install_notify_filter(const ChildPlan& plan) {
  if (plan.notify_seccomp.len == 0) return false;
  int listener = static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                          SECCOMP_FILTER_FLAG_NEW_LISTENER, &plan.notify_seccomp));
  if (listener < 0) return false;
  ChannelPacket packet;
  packet.message =
      ChildMessage{ChildMessageKind::kSeccompListener, SetupPhase::kSeccomp, 0, 0, 0, 0};
  packet.attach_fd(listener);
  while (sendmsg(plan.fds.channel, &packet.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  close(listener);
  return true;
}

void run_init(const ChildPlan& plan) {
  int channel = plan.fds.channel;
  int bind_fds[kMaxBinds];
  std::size_t bind_count = plan.bind_sources->size();
  for (std::size_t i = 0; i < bind_count && i < kMaxBinds; ++i) {
    // A detached copy of the source tree, taken before the staging tmpfs can cover any of it.
    bind_fds[i] = static_cast<int>(syscall(SYS_open_tree, AT_FDCWD, (*plan.bind_sources)[i],
                                           OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
    if (bind_fds[i] < 0) fail(channel, SetupPhase::kBindSource, errno, static_cast<int>(i));
  }
  int layer_fds[kMaxLayers];
  std::size_t layer_count = plan.layer_sources->size();
  for (std::size_t i = 0; i < layer_count && i < kMaxLayers; ++i) {
    layer_fds[i] = open((*plan.layer_sources)[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (layer_fds[i] < 0) fail(channel, SetupPhase::kLayerSource, errno, static_cast<int>(i));
  }
  take_identity(plan);
  if (sethostname(plan.hostname, std::strlen(plan.hostname)) != 0) {
    fail(channel, SetupPhase::kHostname, errno);
  }
  // Before the mount plan makes /proc/sys read-only, and while init still has CAP_SYS_RESOURCE
  // in the sandbox's user namespace: from here on, nothing of the sandbox's can take more of
  // the budgets the server's user shares with it (shared_budgets.h).
  int failed_limit = 0;
  if (int error = apply_ucount_limits(&failed_limit); error != 0) {
    fail(channel, SetupPhase::kUcountLimits, error, failed_limit);
  }
  // A late network is not made yet, and init is still in paddock's: nothing network-wise here
  // (a plan that asks for a listener or a fence with it is not paddock's).
  if (plan.late_network &&
      (plan.proxy_port != 0 || (plan.network_fence != nullptr && !plan.network_fence->empty()))) {
    fail(channel, SetupPhase::kNetworkNamespace, EINVAL, 5);
  }
  if (plan.private_loopback && !plan.late_network) {
    if (int error = bring_loopback_up(); error != 0) fail(channel, SetupPhase::kLoopback, error);
  }
  if (plan.proxy_port != 0) {
    if (int error = send_proxy_listener(channel, plan.proxy_port); error != 0) {
      fail(channel, SetupPhase::kLoopback, error);
    }
  }
  if (plan.network_fence != nullptr && !plan.network_fence->empty()) {
    int failed_rule = 0;
    if (int error =
            apply_fence(plan.network_fence->data(), plan.network_fence->size(), &failed_rule);
        error != 0) {
      fail(channel, SetupPhase::kNetworkFence, error, failed_rule);
    }
  }
  umask(0);
  int failed_step = 0;
  MountSources sources{bind_fds, bind_count, layer_fds, layer_count};
  if (int error = apply_mount_plan(*plan.mounts, sources, &failed_step); error != 0) {
    fail(channel, SetupPhase::kMount, error, failed_step);
  }
  for (std::size_t i = 0; i < bind_count; ++i) close(bind_fds[i]);
  for (std::size_t i = 0; i < layer_count; ++i) close(layer_fds[i]);
  if (chdir("/") != 0) fail(channel, SetupPhase::kMount, errno, -1);
  if (plan.late_network) join_late_network(channel);
  // After the late network is joined: the sockets it makes are that namespace's.
  if (plan.session && plan.preview_factory) send_socket_factory(channel);
  send_workdir(plan);

  // init needs no privilege to start, reap and serve; what it kept could only help a payload
  // that attacked it. Under the program's own filter it can do nothing the program cannot.
  drop_privileges(plan);
  if (plan.init_seccomp.len == 0) {
    if (!install_notify_filter(plan)) install_filter(plan, plan.seccomp);
    program_filter_inherited = true;
  } else {
    install_filter(plan, plan.init_seccomp);
  }
  if (plan.session) serve_session(plan);
  run_steps(plan, 0, start_step(plan, 0));
}

}  // namespace paddock
