// paddock_probe: runs inside a sandbox and tries, one at a time, the things the sandbox must
// refuse. Prints "RESULT <name> ok" when the attempt succeeded and "RESULT <name> errno=<N>"
// when it failed; the integration tests decide what is expected. Attempts that seccomp answers by
// killing the process (other ABIs) end with SIGSYS instead of printing.
//
// It also pushes against the resource limits (alloc, forkbomb, spin: scripts/vm/init.sh checks
// what the cgroup made of them) and, outside any sandbox, drops root for the VM test (runas) and
// runs paddock as on a kernel older than 5.8 (pre-5.8).
//
// And it takes what a sandbox shares with its server's user and with other sandboxes, until the
// kernel refuses (inotify-instances, inotify-watches, ptys): it prints how many it got and the
// errno that stopped it, then holds them for a while, so that a test can look at the host in
// the meantime.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
ATTEMPT(mbind, syscall(SYS_mbind, NULL, 0, 0, NULL, 0, 0))
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
    ENTRY(mbind),         ENTRY(x32),               ENTRY(int80),
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

// Parses all of `text` as a number in [min, max]; exits with usage status 2 otherwise.
static long parse_long(const char* text, long min, long max) {
  char* end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
    fprintf(stderr, "paddock_probe: bad number '%s'\n", text);
    exit(2);
  }
  return value;
}

static double parse_seconds(const char* text) {
  char* end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !(value >= 0 && value <= 86400)) {
    fprintf(stderr, "paddock_probe: bad duration '%s'\n", text);
    exit(2);
  }
  return value;
}

// Helpers forked by forkbomb and spin must not outlive the probe when it runs outside a
// sandbox (inside one, the PID namespace ends with its init anyway).
static void die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) _exit(0);
}

// alloc MIB: mallocs MIB MiB and writes every page, so the memory is really charged (untouched
// pages cost nothing). Progress goes out unbuffered: the last line printed before an OOM kill
// tells how far it got.
static int cmd_alloc(long mib) {
  setvbuf(stdout, NULL, _IONBF, 0);
  size_t total = (size_t)mib << 20;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char* block = malloc(total);
  if (block == NULL) {
    printf("alloc failed errno=%d\n", errno);
    return 1;
  }
  for (size_t offset = 0; offset < total; offset += page) {
    memset(block + offset, 0x5a, page);
    // Keeps the compiler from proving the stores dead and dropping them with the malloc.
    __asm__ volatile("" : : "r"(block) : "memory");
    size_t done = offset + page;
    if (done % ((size_t)16 << 20) == 0) printf("touched %zu MiB\n", done >> 20);
  }
  printf("alloc done %ld MiB\n", mib);
  free(block);
  return 0;
}

// forkbomb SECONDS: forks until fork fails, each child waiting in pause(), prints how many
// forks succeeded, then holds them all for SECONDS. The cap (well above any sandbox's --pids
// here) keeps a run outside every limit, e.g. as root on the host, from exhausting the pid space.
static int cmd_forkbomb(double seconds) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const long kCap = 1024;
  pid_t self = getpid();
  long forked = 0;
  int error = 0;
  while (forked < kCap) {
    pid_t pid = fork();
    if (pid == 0) {
      die_with_parent(self);
      for (;;) pause();
    }
    if (pid < 0) {
      error = errno;
      break;
    }
    ++forked;
  }
  printf("forked %ld errno=%d\n", forked, error);
  struct timespec hold = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&hold, &hold) != 0 && errno == EINTR) {
  }
  return 0;
}

static double now_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

// Burns CPU until the monotonic clock reaches `deadline`; reads the clock only every so often,
// so nearly all of the time is spent in user mode.
static void spin_until(double deadline) {
  volatile unsigned long counter = 0;
  while (now_seconds() < deadline) {
    for (int i = 0; i < 100000; ++i) counter = counter + 1;
  }
}

// spin SECONDS WORKERS: WORKERS processes (this one and WORKERS-1 children) busy-loop for
// SECONDS of wall-clock time. Processes rather than threads: they need no libpthread, and a
// timeout must kill children too.
static int cmd_spin(double seconds, long workers) {
  double deadline = now_seconds() + seconds;
  pid_t self = getpid();
  long started = 1;
  for (; started < workers; ++started) {
    pid_t pid = fork();
    if (pid == 0) {
      die_with_parent(self);
      spin_until(deadline);
      _exit(0);
    }
    if (pid < 0) {
      printf("spin fork failed errno=%d\n", errno);
      break;
    }
  }
  spin_until(deadline);
  while (wait(NULL) > 0 || errno == EINTR) {
  }
  printf("spun %ld workers for %.3f s\n", started, seconds);
  return 0;
}

// runas UID GID -- CMD ARGS...: root drops to UID/GID without supplementary groups and execs
// CMD. The VM has no su/runuser with a fixed uid, and busybox's need /etc/shadow set up.
static int cmd_runas(char** argv) {
  uid_t uid = (uid_t)parse_long(argv[2], 0, 0x7fffffff);
  gid_t gid = (gid_t)parse_long(argv[3], 0, 0x7fffffff);
  if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
    fprintf(stderr, "paddock_probe runas: %s\n", strerror(errno));
    return 125;
  }
  execvp(argv[5], argv + 5);
  fprintf(stderr, "paddock_probe runas: %s: %s\n", argv[5], strerror(errno));
  return 127;
}

// pre-5.8 -- CMD ARGS...: runs CMD as on a kernel older than 5.8 in the one way paddock's start
// can tell: setns(2) refuses a pidfd there with EINVAL. A filter makes every setns fail so (with
// no network, paddock's only setns is init's join through the relay's pidfd). A raw filter of six
// instructions, because the probe links nothing but libc.
static int cmd_pre_5_8(char** argv) {
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof code / sizeof code[0], code};
  // Without CAP_SYS_ADMIN a filter needs no_new_privs, which also keeps newuidmap from gaining
  // its privilege: paddock then maps the caller's id alone, as for a user without subordinate ids.
  if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    fprintf(stderr, "paddock_probe pre-5.8: no_new_privs: %s\n", strerror(errno));
    return 125;
  }
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
    fprintf(stderr, "paddock_probe pre-5.8: seccomp: %s\n", strerror(errno));
    return 125;
  }
  execvp(argv[3], argv + 3);
  fprintf(stderr, "paddock_probe pre-5.8: %s: %s\n", argv[3], strerror(errno));
  return 127;
}

// Prints "<what> <count> errno=<error>" at once (the test reads it while the run goes on), then
// holds what was taken for `seconds`: the process keeps every descriptor until it exits.
static int report_and_hold(const char* what, long count, int error, double seconds) {
  printf("%s %ld errno=%d\n", what, count, error);
  fflush(stdout);
  struct timespec hold = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&hold, &hold) != 0 && errno == EINTR) {
  }
  return 0;
}

// inotify-instances MAX SECONDS: inotify instances until the kernel refuses one (EMFILE at the
// user namespace's max_inotify_instances) or MAX are open.
static int cmd_inotify_instances(long max, double seconds) {
  long count = 0;
  int error = 0;
  while (count < max) {
    if (inotify_init1(IN_CLOEXEC) < 0) {
      error = errno;
      break;
    }
    ++count;
  }
  return report_and_hold("inotify-instances", count, error, seconds);
}

// inotify-watches MAX SECONDS: one instance, and a watch on each of MAX files it makes in a
// fresh folder under /tmp, until the kernel refuses one (ENOSPC at max_inotify_watches).
static int cmd_inotify_watches(long max, double seconds) {
  int fd = inotify_init1(IN_CLOEXEC);
  if (fd < 0) return report_and_hold("inotify-watches", 0, errno, seconds);
  char dir[] = "/tmp/paddock-watches-XXXXXX";
  if (mkdtemp(dir) == NULL) return report_and_hold("inotify-watches", 0, errno, seconds);
  long count = 0;
  int error = 0;
  char path[64];
  while (count < max) {
    snprintf(path, sizeof path, "%s/%ld", dir, count);
    int file = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    // Told apart: a full /tmp is not the limit asked about.
    if (file < 0) return report_and_hold("inotify-watch-files", count, errno, seconds);
    close(file);
    if (inotify_add_watch(fd, path, IN_MODIFY) < 0) {
      error = errno;
      break;
    }
    ++count;
  }
  return report_and_hold("inotify-watches", count, error, seconds);
}

// ptys MAX SECONDS: opens /dev/ptmx (the sandbox's own devpts) until the kernel refuses a pty
// (ENOSPC at the instance's max=, or at the host's kernel.pty.max) or MAX are open.
static int cmd_ptys(long max, double seconds) {
  long count = 0;
  int error = 0;
  while (count < max) {
    if (open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC) < 0) {
      error = errno;
      break;
    }
    ++count;
  }
  return report_and_hold("ptys", count, error, seconds);
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
  if (argc == 3 && strcmp(argv[1], "alloc") == 0) return cmd_alloc(parse_long(argv[2], 1, 1 << 20));
  if (argc == 3 && strcmp(argv[1], "forkbomb") == 0) return cmd_forkbomb(parse_seconds(argv[2]));
  if (argc == 4 && strcmp(argv[1], "spin") == 0) {
    return cmd_spin(parse_seconds(argv[2]), parse_long(argv[3], 1, 4096));
  }
  if (argc >= 6 && strcmp(argv[1], "runas") == 0 && strcmp(argv[4], "--") == 0) {
    return cmd_runas(argv);
  }
  if (argc >= 4 && strcmp(argv[1], "pre-5.8") == 0 && strcmp(argv[2], "--") == 0) {
    return cmd_pre_5_8(argv);
  }
  if (argc == 4 && strcmp(argv[1], "inotify-instances") == 0) {
    return cmd_inotify_instances(parse_long(argv[2], 1, 1 << 20), parse_seconds(argv[3]));
  }
  if (argc == 4 && strcmp(argv[1], "inotify-watches") == 0) {
    return cmd_inotify_watches(parse_long(argv[2], 1, 1 << 22), parse_seconds(argv[3]));
  }
  if (argc == 4 && strcmp(argv[1], "ptys") == 0) {
    return cmd_ptys(parse_long(argv[2], 1, 1 << 20), parse_seconds(argv[3]));
  }
  fprintf(stderr,
          "usage: paddock_probe try NAME|all | list | alloc MIB | forkbomb SECONDS\n"
          "       | spin SECONDS WORKERS | runas UID GID -- CMD ARGS...\n"
          "       | pre-5.8 -- CMD ARGS...\n"
          "       | inotify-instances MAX SECONDS | inotify-watches MAX SECONDS\n"
          "       | ptys MAX SECONDS\n");
  return 2;
}
