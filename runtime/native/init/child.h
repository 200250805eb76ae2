#pragma once

// Everything that runs inside the sandbox before the user's program: paddock's child until it
// execs paddock-init, paddock-init's relay and the sandbox's init, and the payload process init
// starts.
//
// exec_sandbox_init runs right after clone in a copy of a possibly multi-threaded parent, so it
// must not allocate, lock or log. The rest runs in paddock-init, a fresh single-threaded process,
// in the same style: it reads what the ChildPlan prepared, and failures travel back to the parent
// as ChildMessages.

#include <linux/filter.h>
#include <sys/types.h>

#include <vector>

#include "runtime/native/init/channel.h"
#include "runtime/native/init/mount_plan.h"
#include "runtime/rlimit_plan.h"

namespace paddock::init {

inline constexpr std::size_t kMaxBinds = 32;
inline constexpr std::size_t kMaxLayers = 128;

struct ChildFds {
  int channel = -1;  // SOCK_SEQPACKET to the parent
  int stdin_fd = -1;
  int stdout_fd = -1;  // write ends of the capture pipes
  int stderr_fd = -1;
};

// A file init writes into the work directory between two steps.
struct LateFile {
  const char* path = nullptr;  // relative to the work directory
  const char* content = nullptr;
  std::size_t size = 0;
  unsigned mode = 0644;
};

struct ChildPlan {
  const MountPlan* mounts = nullptr;
  // Host paths of user binds, cloned with open_tree by init in its own mount namespace with the
  // caller's credentials, before the staging tmpfs can cover them. At most kMaxBinds.
  const std::vector<const char*>* bind_sources = nullptr;
  // Host directories of an image's layers (top first), opened by init like bind sources.
  const std::vector<const char*>* layer_sources = nullptr;
  uid_t uid = 1000;  // inside the sandbox
  gid_t gid = 1000;
  bool setgroups_allowed = false;
  const char* hostname = "sandbox";
  // The sandbox has a network namespace of its own, whose loopback init brings up: the
  // program's processes talk over 127.0.0.1 as on any machine, and nothing outside the
  // namespace can reach it.
  bool private_loopback = false;
  // A session's init hands paddock a preview socket factory (send_socket_factory): only for a
  // sandbox whose previews the user allowed, on its own loopback.
  bool preview_factory = false;
  // That namespace is made by paddock-init's relay right after it forks init, with its loopback
  // up, while init builds the file system on the other core; init joins it before anything of
  // the program runs (it was cloned into paddock's own). For a sandbox with no network at all:
  // nothing outside needs the namespace before then.
  bool late_network = false;
  // With an egress allowlist: init listens on this port of that loopback and hands the socket
  // to the parent, whose proxy is the sandbox's only way out. 0: none.
  std::uint16_t proxy_port = 0;
  // Routing rules (network_fence.h) for the sandbox's network namespace, when it may ever get
  // user-mode networking; empty otherwise.
  const std::vector<std::uint8_t>* network_fence = nullptr;
  const std::vector<runtime::RlimitSetting>* rlimits = nullptr;
  const char* cwd = "/";
  const char* workdir = "/work";  // sent to the parent as an fd once the file system is built
  // The commands to run in order (RunPlan::steps), each a null-terminated argv; the last is the
  // program, the ones before it the prelude.
  const std::vector<char* const*>* steps = nullptr;
  // Before starting this step (when > 0), init tells the parent and waits for it to take the
  // network away.
  std::size_t pause_before_step = 0;
  // The caller's files, written by init right before this step (> 0) starts: after the
  // installer, which must never see them.
  const std::vector<LateFile>* late_files = nullptr;
  std::size_t late_files_step = 0;
  // A session's init runs no steps: it serves requests from the parent (session_channel.h)
  // until the parent kills it.
  bool session = false;
  char* const* envp = nullptr;
  const std::vector<const char*>* search_path = nullptr;  // PATH dirs, for argv[0] without '/'
  sock_fprog seccomp{};
  // The filter the sandbox's init runs under once set up. Empty: the program's own (`seccomp`),
  // which every step then inherits instead of installing it again. Otherwise (a profile of the
  // caller's, which might refuse what init needs to start and reap steps) the program's filter
  // plus init's own calls, and each step stacks the program's on top.
  sock_fprog init_seccomp{};
  // `seccomp` with each refusal sent to a listener instead of failed at once, installed in its
  // place when init runs under it (init_seccomp empty) and the kernel gives a listener: init
  // hands the listener to the relay, which answers every call with the same errno and counts
  // it (init_relay.h). Empty: the errno form alone.
  sock_fprog notify_seccomp{};
  ChildFds fds;
};

// Calls `visit(field)` for each field of `plan` that travels to paddock-init, in declaration
// order: the one list its encoding, decoding and checking follow (init/init_plan.cc). The
// binding names every field, so a field added to ChildPlan without a place here fails to compile.
template <class Plan, class Visit>
void visit_child_plan(Plan& plan, Visit&& visit) {
  auto& [mounts, bind_sources, layer_sources, uid, gid, setgroups_allowed, hostname,
         private_loopback, preview_factory, late_network, proxy_port, network_fence, rlimits, cwd,
         workdir, steps, pause_before_step, late_files, late_files_step, session, envp, search_path,
         seccomp, init_seccomp, notify_seccomp, fds] = plan;
  // notify_seccomp stays behind: paddock-init makes it from `seccomp` itself.
  (void)notify_seccomp;
  [&](auto&... field) { (visit(field), ...); }(
      mounts, bind_sources, layer_sources, uid, gid, setgroups_allowed, hostname, private_loopback,
      preview_factory, late_network, proxy_port, network_fence, rlimits, cwd, workdir, steps,
      pause_before_step, late_files, late_files_step, session, envp, search_path, seccomp,
      init_seccomp, fds);
}

// What paddock's child needs to become paddock-init, prepared before clone.
struct InitExec {
  int program = -1;           // O_PATH fd of paddock-init
  int channel = -1;           // for the one failure that can happen here
  const int* keep = nullptr;  // the fds paddock-init gets (the plan's and the plan's memfd)
  int keep_count = 0;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
};

// In paddock's child right after clone: keeps only the fds of `exec`, keeps every capability
// of the new user namespace through exec (as ambient capabilities: the caller's id is not root
// in it), and execs paddock-init, so that nothing of paddock's memory stays in the sandbox.
[[noreturn]] void exec_sandbox_init(const InitExec& exec);

// Clones the sandbox's first process with `flags` (its namespaces, CLONE_PIDFD) and has it run
// exec_sandbox_init(exec). Returns its pid (in the caller only), or -1 with errno. The child is
// born in the cgroup `cgroup_fd` is open on, if one is given.
pid_t spawn_sandbox_init(unsigned long long flags, int* pidfd, int cgroup_fd, const InitExec& exec);

// Blocks until paddock says go (the plan sealed, the id maps written, a network attached); exits
// on anything else, such as the end of file of a paddock that died or gave up.
void wait_for_go(int channel);

// paddock-init, PID 1 of the sandbox's outer PID namespace, once paddock said go: starts the
// sandbox's init in a PID namespace of its own, then only relays messages between it and
// paddock, under a seccomp filter that allows nothing else (init_relay.h). Never returns.
[[noreturn]] void run_sandbox_init(ChildPlan& plan);

// The sandbox's init, PID 1 of the namespace the program lives in: builds the file system,
// starts the steps, reaps every orphan and reports the payload's wait status. It runs under the
// program's seccomp filter with no capabilities, so the program can gain nothing by attacking
// it. Never returns.
[[noreturn]] void run_init(const ChildPlan& plan);

// Closes every fd except those in `keep` (sorted ascending). Allocation-free. `at_exec`: only
// marks them close-on-exec where the kernel can (CLOSE_RANGE_CLOEXEC, Linux 5.11), so that the
// exec closes them (a close may wait on the file's flush: FUSE, NFS).
void close_all_except(const int* keep, int count, bool at_exec = false);

// Why a payload process could not start: the setup phase and an errno (0: it started).
struct PayloadFailure {
  SetupPhase phase = SetupPhase::kExec;
  int error = 0;
};

// One command for the payload process to run, with its standard streams.
// Whether a payload gets a Landlock domain of its own (process_domain.h).
enum class ProcessDomain {
  kShared,
  kOwnWherePossible,  // nothing else of the sandbox runs: a host without Landlock loses nothing
  kOwn,               // the sandbox keeps a process (a live interpreter): fail rather than share
};

struct PayloadCommand {
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // A warm interpreter's channel: its socket to wait for its call on, as fd 3; or, with
  // answer_fd (runtime::WarmInterpreter::call_on_pipes), the pipe its call comes on, as fd 4, and
  // the one it answers on, as fd 5, with fd 3 left free. -1: none.
  int call_fd = -1;
  int answer_fd = -1;
  std::int32_t step = 0;  // reported back with an exec failure
  ProcessDomain domain = ProcessDomain::kShared;
  // Where a payload spawned sharing init's memory leaves why it could not start (its streams,
  // working directory, limits or exec), instead of sending kSetupFailed or kExecFailed: init
  // then answers the request with it (a session's resident, whose start is answered at once).
  // Only ever written before the child's exec or _exit.
  PayloadFailure* failure = nullptr;
};

// In the payload process: streams, a new session, limits, no privileges, seccomp, execve.
[[noreturn]] void run_payload(const ChildPlan& plan, const PayloadCommand& command);

// In init, once its privileges are dropped: starts the payload process, which runs
// run_payload(plan, command). Its PID, or -errno. When init has no other child (so nothing of the
// sandbox's own code runs), the payload shares init's memory until its exec, which init waits
// for (spawn_sharing_memory). Otherwise (a session's resident, or what a resident left behind)
// it is forked: that code could stop the payload before its exec, and a waiting init would then
// serve no kill. With `command.failure` set and the payload spawned, a failure to start is left
// there and returned as -errno, the child already reaped.
pid_t spawn_payload(const ChildPlan& plan, const PayloadCommand& command);

// Runs `body(argument)` in a child that shares this process's memory until it execs, on a stack
// of its own, while the calling thread waits for that exec (CLONE_VM | CLONE_VFORK, as
// posix_spawn does): no copy of the caller's page tables is made for the exec to throw away, and
// the caller takes no copy-on-write faults meanwhile. `body` must exec or _exit, and write
// nothing of the caller's but its own stack (it has its own fd table and signal handlers).
// `flags` adds namespaces and CLONE_PIDFD (`pidfd`); one that does not fit the legacy clone's int
// (CLONE_NEWTIME, clone3's own) is refused with EINVAL, not lost. The child's PID, or -1 with
// errno.
pid_t spawn_sharing_memory(int (*body)(void*), void* argument, unsigned long long flags,
                           int* pidfd);

// Opens `path` (relative, its '/' overwritten while walking) for writing beneath the work
// directory `work`, making missing directories and following no symlink. An fd, or -errno.
int open_for_write(int work, char* path, mode_t mode = 0644);

// Makes the directory `path` and its parents beneath `work` the same way; an fd of it, or -errno.
int make_directories(int work, char* path);
// A symlink `path` -> `target`, its parents made as make_directories makes them: an fd of its
// directory, or -errno.
int make_symlink(int work, char* path, const char* target);
// A hard link `path` to the regular file `existing` (both beneath `work`); the file, or -errno.
int make_hard_link(int work, char* path, char* existing);

// no_new_privs, locked securebits and every capability gone; once per process tree.
void drop_privileges(const ChildPlan& plan);

// One message to the parent, retried on EINTR.
void send(int channel, const ChildMessage& message);

// In init: kills every other process of the sandbox and reaps them all, so that not even a
// zombie of an earlier step or command is left when the next one starts.
void kill_and_reap_all();

// A session's init after setup (session_init.cc).
[[noreturn]] void serve_session(const ChildPlan& plan);

// A session's preview socket factory (net/preview/socket_request.h): makes the socketpair,
// keeps one end for serve_session and sends the other to paddock (kSocketFactory). Without it
// (no descriptors), the session serves no previews and nothing else changes.
void send_socket_factory(int channel);

// clone3 with fork semantics (no new stack): returns 0 in the child, the child's pid in the
// parent, -1 with errno on failure. pidfd receives a pidfd when CLONE_PIDFD is in flags.
// With CLONE_INTO_CGROUP in flags, the child starts in the cgroup `cgroup_fd` is open on.
pid_t clone_process(unsigned long long flags, int* pidfd, int cgroup_fd = -1);

}  // namespace paddock::init
