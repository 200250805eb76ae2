#include "runtime/native/init/child.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/native/init/child_parts.h"
#include "runtime/native/init/init_relay.h"
#include "runtime/native/init/mount_applier.h"
#include "runtime/native/init/network_fence.h"
#include "runtime/native/init/ucount_limits.h"

namespace paddock::init {

void send(int channel, const ChildMessage& message) {
  while (write(channel, &message, sizeof message) < 0 && errno == EINTR) {
  }
}

namespace child_parts {

[[noreturn]] void fail(int channel, SetupPhase phase, int error, int detail) {
  send(channel, ChildMessage{ChildMessageKind::kSetupFailed, phase, detail, error, 0});
  _exit(125);
}

}  // namespace child_parts

using namespace child_parts;

namespace {

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

// Installs the program's filter in its notify form and hands the listener to the relay, which
// answers each refusal with the errno form's own errno and counts it. False when the kernel
// gives no listener (before Linux 5.0, or EBUSY: a sandbox inside another sandbox whose filter
// already has one): the errno form then refuses alone, as without a relay. A listener that
// cannot reach the relay leaves every refused call failing with ENOSYS: refused all the same.
bool install_notify_filter(const ChildPlan& plan) {
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

// Moves the relay off the CPU it shares with init, for as long as it lives, and then lets it go
// anywhere it could before. The kernel puts a forked child on its parent's CPU, and the network
// namespace the relay then makes (about half a millisecond of kernel work) would keep init, and
// the whole start, waiting, while the other CPU idles. Where the relay may run on one CPU only,
// nothing moves.
class CpuStepAside {
 public:
  CpuStepAside() {
    if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) return;
    int here = sched_getcpu();
    if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &allowed_)) return;
    cpu_set_t elsewhere = allowed_;
    CPU_CLR(here, &elsewhere);
    if (CPU_COUNT(&elsewhere) == 0) return;
    moved_ = sched_setaffinity(0, sizeof elsewhere, &elsewhere) == 0;
  }
  ~CpuStepAside() {
    if (moved_) sched_setaffinity(0, sizeof allowed_, &allowed_);
  }
  CpuStepAside(const CpuStepAside&) = delete;
  CpuStepAside& operator=(const CpuStepAside&) = delete;

 private:
  cpu_set_t allowed_{};
  bool moved_ = false;
};

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
    CpuStepAside aside;
    init_socket = make_late_network(pair[0]);
    if (init_socket != pair[0]) init_before = pair[0];
  }
  take_identity(plan);
  drop_privileges(plan);
  relay_until_init_exits(channel, init_socket, init, init_before, plan.seccomp);
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

}  // namespace paddock::init
