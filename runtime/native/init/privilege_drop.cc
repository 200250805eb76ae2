// Dropping privileges and installing the program's filter: the last steps before a payload's
// exec (and init's own, once its file system is built).
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/native/init/child_parts.h"

#ifndef SECBIT_NOROOT
#include <linux/securebits.h>
#endif

namespace paddock::init {
namespace child_parts {

// Set once this process (or the init it was forked from) has dropped everything: a later
// prelude step inherits that state, and without CAP_SETPCAP could not even repeat the drop.
bool privileges_dropped = false;
// Set once init runs under the program's own filter, which its steps then inherit.
bool program_filter_inherited = false;

void install_filter(const ChildPlan& plan, const sock_fprog& filter) {
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter) != 0) {
    fail(plan.fds.channel, SetupPhase::kSeccomp, errno);
  }
}

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

}  // namespace child_parts

using namespace child_parts;

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

}  // namespace paddock::init
