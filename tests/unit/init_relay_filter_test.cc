// The filter of paddock-init's relay (policies/seccomp/init_relay.json), as compiled into
// paddock-init: it carries packets and reaps, and any other system call kills it. Checked with
// the exact BPF interpreter, on the program the relay actually loads.

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include "runtime/native/init/init_relay_bpf.h"
#include "support/bpf_interpreter.h"

namespace paddock::init_relay_filter_test {
namespace {

using testing::describe_seccomp_ret;
using testing::make_seccomp_data;
using testing::run_seccomp_filter;
using testing::seccomp_action;

std::uint32_t decide(int nr, std::uint32_t arch = AUDIT_ARCH_X86_64) {
  return run_seccomp_filter(seccomp::init_relay_bpf(), make_seccomp_data(nr, {}, arch));
}

TEST(InitRelayFilter, PassesTheKernelsLoadChecks) {
  EXPECT_EQ(testing::validate_seccomp_program(seccomp::init_relay_bpf()), "");
}

TEST(InitRelayFilter, AllowsRelayingAndReapingOnly) {
  for (int nr : {SYS_poll, SYS_ppoll, SYS_recvmsg, SYS_sendmsg, SYS_close, SYS_wait4, SYS_exit,
                 SYS_exit_group, SYS_restart_syscall}) {
    EXPECT_EQ(decide(nr), SECCOMP_RET_ALLOW) << "system call " << nr;
  }
}

TEST(InitRelayFilter, KillsEverythingElse) {
  // What an attacker who reached the relay would want first: files, memory for code, new
  // processes and programs, the network, other processes, namespaces and kernel interfaces.
  for (int nr : {SYS_read,        SYS_write,       SYS_open,
                 SYS_openat,      SYS_openat2,     SYS_mmap,
                 SYS_mprotect,    SYS_brk,         SYS_clone,
                 SYS_clone3,      SYS_fork,        SYS_vfork,
                 SYS_execve,      SYS_execveat,    SYS_socket,
                 SYS_connect,     SYS_socketpair,  SYS_kill,
                 SYS_tgkill,      SYS_ptrace,      SYS_process_vm_writev,
                 SYS_pidfd_open,  SYS_pidfd_getfd, SYS_unshare,
                 SYS_setns,       SYS_mount,       SYS_chdir,
                 SYS_ioctl,       SYS_bpf,         SYS_io_uring_setup,
                 SYS_userfaultfd, SYS_keyctl,      SYS_prctl,
                 SYS_seccomp,     SYS_setuid,      SYS_capset,
                 SYS_dup2}) {
    std::uint32_t ret = decide(nr);
    EXPECT_EQ(seccomp_action(ret), SECCOMP_RET_KILL_PROCESS)
        << "system call " << nr << ": " << describe_seccomp_ret(ret);
  }
}

TEST(InitRelayFilter, AllowsAnsweringRefusedCallsAndNoOtherIoctl) {
  auto ioctl = [](std::uint64_t request) {
    return run_seccomp_filter(seccomp::init_relay_bpf(),
                              make_seccomp_data(SYS_ioctl, {3, request}));
  };
  EXPECT_EQ(ioctl(SECCOMP_IOCTL_NOTIF_RECV), SECCOMP_RET_ALLOW);
  EXPECT_EQ(ioctl(SECCOMP_IOCTL_NOTIF_SEND), SECCOMP_RET_ALLOW);
  // Not ADDFD (which would put an fd into a refused caller), not ID_VALID, not a terminal's.
  const std::uint64_t others[] = {SECCOMP_IOCTL_NOTIF_ADDFD, SECCOMP_IOCTL_NOTIF_ID_VALID, 0x5412,
                                  SECCOMP_IOCTL_NOTIF_RECV | (1ull << 32)};
  for (std::uint64_t request : others) {
    EXPECT_EQ(seccomp_action(ioctl(request)), SECCOMP_RET_KILL_PROCESS) << request;
  }
}

TEST(InitRelayFilter, KillsOtherAbis) {
  // The 32-bit ABI numbers its calls differently: 3 is read there, close here.
  EXPECT_EQ(seccomp_action(decide(3, AUDIT_ARCH_I386)), SECCOMP_RET_KILL_PROCESS);
  EXPECT_EQ(seccomp_action(decide(SYS_close | 0x40000000)), SECCOMP_RET_KILL_PROCESS);
}

}  // namespace
}  // namespace paddock::init_relay_filter_test
