#pragma once

// What one sandbox may take of the kernel budgets it shares with the server's user and with
// every other sandbox, named in one place.
//
// The kernel counts inotify instances and watches, fanotify groups and marks, and namespaces
// per user and per user namespace ("ucounts"), and charges each up the chain of user namespaces:
// what a sandbox's processes hold also counts against the user that owns the sandbox's user
// namespace, which is the server's user (root, for a root server). Each limit is checked at
// every level, so a low limit in the sandbox's own user namespace is reached first, and the
// user's own limit is not. These limits live in /proc/sys/user/ of each user namespace and
// start there at INT_MAX; paddock-init lowers them in the sandbox's namespace while it still
// has CAP_SYS_RESOURCE there (ucount_limits.h).
//
// ptys come from one pool for the whole host (kernel.pty.max, of which kernel.pty.reserve is
// kept for the host's own devpts): a sandbox's devpts instance gets max=kSandboxPtys.

namespace paddock::runtime {

struct UcountLimit {
  const char* file;  // in /proc/sys/user/
  int value;
};

// Each sandbox gets at most these, per user inside it (there is one, the sandbox user).
// inotify: file watchers (a dev server, a test runner in watch mode) take one instance or a few
// and a watch per file or folder watched; the host's defaults for a whole user are 128
// instances and, here, about 190,000 watches. fanotify: a group per watcher, rarely any.
// Namespaces: the program cannot make any (seccomp refuses it); paddock's own machinery makes a
// few in the sandbox's user namespace (the relay's PID namespace, a network namespace made late,
// pasta's own mount, IPC, UTS and PID namespaces), so each kind keeps room for those.
inline constexpr UcountLimit kSandboxUcountLimits[] = {
    {"max_inotify_instances", 16}, {"max_inotify_watches", 8192}, {"max_fanotify_groups", 4},
    {"max_fanotify_marks", 1024},  {"max_user_namespaces", 8},    {"max_mnt_namespaces", 8},
    {"max_pid_namespaces", 8},     {"max_net_namespaces", 8},     {"max_ipc_namespaces", 8},
    {"max_uts_namespaces", 8},     {"max_cgroup_namespaces", 8},  {"max_time_namespaces", 8},
};

// ptys in a sandbox's own devpts: a terminal for the program, a shell or two inside it, and a
// tool that runs its children on ptys (expect, script, a test runner). The host shares 3072
// among every sandbox and container (kernel.pty.max 4096 less its reserve of 1024).
inline constexpr int kSandboxPtys = 64;

// POSIX message queues and queued signals are charged to the sandbox's user up the same chain,
// in bytes and in signals, and bounded by each process's RLIMIT_MSGQUEUE and RLIMIT_SIGPENDING
// (rlimit_plan.h) rather than by a file in /proc/sys/user/. 256 KiB holds three queues of the
// default size (10 messages of 8 KiB); the host's default for a whole user is 800 KiB.
inline constexpr unsigned long kSandboxMessageQueueBytes = 256ul << 10;
inline constexpr unsigned long kSandboxPendingSignals = 1024;

}  // namespace paddock::runtime
