// paddock_probe: runs inside a sandbox and tries, one at a time, the things the sandbox must
// refuse. Prints "RESULT <name> ok" when the attempt succeeded and "RESULT <name> errno=<N>"
// when it failed; the integration tests decide what is expected. Attempts that seccomp answers by
// killing the process (other ABIs) end with SIGSYS instead of printing.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long attempt_clone(unsigned long flags) {
  long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid((pid_t)pid, NULL, 0);
  return pid;
}

static long do_clone3(void) {
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid((pid_t)pid, NULL, 0);
  return pid;
}

// getpid through the x32 ABI: same AUDIT_ARCH as x86_64, syscall number with bit 30 set.
static long do_x32(void) {
#if defined(__x86_64__)
  return syscall(0x40000000 | SYS_getpid);
#else
  errno = ENOSYS;
  return -1;
#endif
}

// getpid (20) through the 32-bit int 0x80 entry point.
static long do_int80(void) {
#if defined(__x86_64__)
  long result;
  __asm__ volatile("int $0x80" : "=a"(result) : "a"(20L) : "memory");
  if (result < 0 && result > -4096) {
    errno = (int)-result;
    return -1;
  }
  return result;
#else
  errno = ENOSYS;
  return -1;
#endif
}

struct attempt {
  const char* name;
  long (*run)(void);
};

#define ATTEMPT(NAME, EXPR) \
  static long attempt_##NAME(void) { return (long)(EXPR); }

ATTEMPT(keyctl, syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0))
ATTEMPT(add_key, syscall(SYS_add_key, "user", "paddock", "x", 1, -3))
ATTEMPT(request_key, syscall(SYS_request_key, "user", "paddock", NULL, -3))
ATTEMPT(bpf, syscall(SYS_bpf, 0, NULL, 0))
ATTEMPT(perf_event_open, syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0))
ATTEMPT(userfaultfd, syscall(SYS_userfaultfd, 0))
ATTEMPT(io_uring_setup, syscall(SYS_io_uring_setup, 1, NULL))
ATTEMPT(kexec_load, syscall(SYS_kexec_load, 0, 0, NULL, 0))
ATTEMPT(init_module, syscall(SYS_init_module, NULL, 0, ""))
ATTEMPT(finit_module, syscall(SYS_finit_module, -1, "", 0))
ATTEMPT(delete_module, syscall(SYS_delete_module, "paddock", 0))
ATTEMPT(mount, syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL))
ATTEMPT(umount2, syscall(SYS_umount2, "/tmp", MNT_DETACH))
ATTEMPT(pivot_root, syscall(SYS_pivot_root, "/tmp", "/tmp"))
ATTEMPT(move_mount, syscall(SYS_move_mount, -1, "", -1, "/tmp", 0))
ATTEMPT(fsopen, syscall(SYS_fsopen, "tmpfs", 0))
ATTEMPT(open_tree, syscall(SYS_open_tree, AT_FDCWD, "/tmp", 1 /* OPEN_TREE_CLONE */))
ATTEMPT(unshare_user, syscall(SYS_unshare, CLONE_NEWUSER))
ATTEMPT(unshare_net, syscall(SYS_unshare, CLONE_NEWNET))
ATTEMPT(setns, syscall(SYS_setns, open("/proc/self/ns/mnt", O_RDONLY), 0))
ATTEMPT(clone_newuser, attempt_clone(CLONE_NEWUSER))
ATTEMPT(clone_newns, attempt_clone(CLONE_NEWNS))
ATTEMPT(clone_plain, attempt_clone(0))
ATTEMPT(clone3, do_clone3())
ATTEMPT(ptrace_traceme, syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, NULL, NULL))
ATTEMPT(ptrace_attach, syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 1, NULL, NULL))
ATTEMPT(process_vm_readv, syscall(SYS_process_vm_readv, 1, NULL, 0, NULL, 0, 0))
ATTEMPT(process_vm_writev, syscall(SYS_process_vm_writev, 1, NULL, 0, NULL, 0, 0))
ATTEMPT(tiocsti, syscall(SYS_ioctl, 0, 0x5412UL, "x"))
ATTEMPT(tiocsti_high_bits, syscall(SYS_ioctl, 0, 0x100005412UL, "x"))
ATTEMPT(tioclinux, syscall(SYS_ioctl, 0, 0x541CUL, "x"))
ATTEMPT(fionread, syscall(SYS_ioctl, 0, 0x541BUL, &(int){0}))
ATTEMPT(socket_alg, syscall(SYS_socket, 38, SOCK_SEQPACKET, 0))
ATTEMPT(socket_alg_high_bits, syscall(SYS_socket, 38UL | (1UL << 32), SOCK_SEQPACKET, 0))
ATTEMPT(socket_vsock, syscall(SYS_socket, 40, SOCK_STREAM, 0))
ATTEMPT(socket_unix, syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0))
ATTEMPT(personality_no_aslr, syscall(SYS_personality, ADDR_NO_RANDOMIZE))
ATTEMPT(personality_query, syscall(SYS_personality, 0xffffffffUL))
ATTEMPT(chroot, syscall(SYS_chroot, "/tmp"))
ATTEMPT(x32, do_x32())
ATTEMPT(int80, do_int80())

static const struct attempt kAttempts[] = {
#define ENTRY(NAME) {#NAME, attempt_##NAME}
    ENTRY(keyctl),        ENTRY(add_key),           ENTRY(request_key),
    ENTRY(bpf),           ENTRY(perf_event_open),   ENTRY(userfaultfd),
    ENTRY(io_uring_setup), ENTRY(kexec_load),       ENTRY(init_module),
    ENTRY(finit_module),  ENTRY(delete_module),     ENTRY(mount),
    ENTRY(umount2),       ENTRY(pivot_root),        ENTRY(move_mount),
    ENTRY(fsopen),        ENTRY(open_tree),         ENTRY(unshare_user),
    ENTRY(unshare_net),   ENTRY(setns),             ENTRY(clone_newuser),
    ENTRY(clone_newns),   ENTRY(clone_plain),       ENTRY(clone3),
    ENTRY(ptrace_traceme), ENTRY(ptrace_attach),    ENTRY(process_vm_readv),
    ENTRY(process_vm_writev), ENTRY(tiocsti),       ENTRY(tiocsti_high_bits),
    ENTRY(tioclinux),     ENTRY(fionread),          ENTRY(socket_alg),
    ENTRY(socket_alg_high_bits), ENTRY(socket_vsock), ENTRY(socket_unix),
    ENTRY(personality_no_aslr), ENTRY(personality_query), ENTRY(chroot),
    ENTRY(x32),           ENTRY(int80),
#undef ENTRY
};

static int run_attempt(const struct attempt* a) {
  errno = 0;
  long result = a->run();
  if (result < 0) {
    printf("RESULT %s errno=%d\n", a->name, errno);
  } else {
    printf("RESULT %s ok\n", a->name);
  }
  fflush(stdout);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "try") == 0) {
    for (size_t i = 0; i < sizeof kAttempts / sizeof kAttempts[0]; ++i) {
      if (strcmp(argv[2], "all") == 0 || strcmp(argv[2], kAttempts[i].name) == 0) {
        // "all" skips the attempts that end the process (they have their own runs).
        if (strcmp(argv[2], "all") == 0 &&
            (strcmp(kAttempts[i].name, "x32") == 0 || strcmp(kAttempts[i].name, "int80") == 0)) {
          continue;
        }
        run_attempt(&kAttempts[i]);
        if (strcmp(argv[2], "all") != 0) return 0;
      }
    }
    return strcmp(argv[2], "all") == 0 ? 0 : 2;
  }
  if (argc == 2 && strcmp(argv[1], "list") == 0) {
    for (size_t i = 0; i < sizeof kAttempts / sizeof kAttempts[0]; ++i) puts(kAttempts[i].name);
    return 0;
  }
  fprintf(stderr, "usage: paddock_probe try NAME|all | list\n");
  return 2;
}
