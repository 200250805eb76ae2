// The sandbox's first process: cloned by paddock, it keeps its capabilities through the exec of
// paddock-init. And the two clones both sides use.
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/native/init/child_parts.h"

namespace paddock::init {

using namespace child_parts;

namespace {

int exec_sandbox_init_on_own_stack(void* exec) {
  exec_sandbox_init(*static_cast<const InitExec*>(exec));
}

}  // namespace

pid_t clone_process(unsigned long long flags, int* pidfd, int cgroup_fd) {
  clone_args args{};
  args.flags = flags;
  if (cgroup_fd >= 0) args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
  args.pidfd = reinterpret_cast<std::uint64_t>(pidfd);
  args.exit_signal = SIGCHLD;
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof args));
}

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

}  // namespace paddock::init
