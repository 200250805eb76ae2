#include "runtime/native/sandbox_launch.h"

#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/native/egress_plan.h"
#include "runtime/native/init/child.h"
#include "runtime/native/init_program.h"
#include "runtime/native/run_report.h"
#include "runtime/native/spec_validation.h"
#include "runtime/setting_names.h"

namespace paddock::native {
namespace {

constexpr unsigned long long kBaseNamespaces =
    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

// How the sandbox starts, as launch_sandbox decided it.
struct ChildStart {
  bool late_network = false;  // ChildPlan::late_network
  bool session = false;
  bool egress_proxy = false;  // init listens for the proxy (ChildPlan::proxy_port)
};

// Every field of ChildPlan, in its declared order: the compiler holds designated initializers
// to it, so this is the one place the plan is filled.
init::ChildPlan child_plan(const runtime::SandboxShape& shape, const runtime::RunPlan& run,
                           const init::SandboxIdentity& identity, const Prepared& prepared,
                           const ChildStart& start) {
  bool private_loopback = shape.network != runtime::NetworkMode::kHost;
  bool pause = shape.network != runtime::NetworkMode::kUser && run.networked_steps > 0;
  return init::ChildPlan{
      .mounts = &prepared.mounts,
      .bind_sources = &prepared.bind_sources,
      .layer_sources = &prepared.layer_sources,
      .uid = identity.uid,
      .gid = identity.gid,
      .setgroups_allowed =
          plan_id_map(id_map_host(), 1, identity.uid, identity.gid, prepared.bind_writer)
              .setgroups_allowed,
      .hostname = shape.hostname.c_str(),
      .private_loopback = private_loopback,
      .preview_factory = shape.previews && private_loopback,
      .late_network = start.late_network,
      .proxy_port = start.egress_proxy ? net::egress::kProxyPort : std::uint16_t{0},
      .network_fence = &prepared.network_fence,
      .rlimits = &prepared.rlimits,
      .cwd = prepared.cwd.c_str(),
      .workdir = shape.workdir.c_str(),
      .steps = &prepared.steps,
      .pause_before_step = pause ? run.networked_steps : 0,
      .late_files = &prepared.late_files,
      .late_files_step = prepared.late_files.empty() ? 0 : run.networked_steps,
      .session = start.session,
      .envp = const_cast<char* const*>(prepared.envp.data()),
      .search_path = &prepared.path_dirs,
      .seccomp = prepared.seccomp->as_fprog(),
      .init_seccomp = prepared.init_seccomp ? prepared.init_seccomp->as_fprog() : sock_fprog{},
      .fds = init::ChildFds{prepared.channel_child.get(), prepared.stdin_fd.get(),
                            prepared.stdout_pipe.write_end.get(),
                            prepared.stderr_pipe.write_end.get()},
  };
}

init::SandboxIdentity identity_of(const runtime::SandboxShape& shape) {
  init::SandboxIdentity identity;
  identity.uid = shape.user.uid;
  identity.gid = shape.user.gid;
  identity.user = shape.user.name;
  identity.home = shape.workdir;
  return identity;
}

// paddock-init's command line and environment, and the fds it keeps: what its InitExec points
// into, so filled in place and never moved.
struct InitCommand {
  std::string plan_variable;
  std::string channel_variable;
  char* argv[2] = {};
  char* envp[3] = {};
  std::vector<int> keep;
  init::InitExec exec;
};

void fill_init_command(InitCommand& command, const Prepared& prepared, int plan_fd, int program) {
  command.plan_variable = "PADDOCK_INIT_PLAN_FD=" + std::to_string(plan_fd);
  command.channel_variable =
      "PADDOCK_INIT_CHANNEL_FD=" + std::to_string(prepared.channel_child.get());
  command.argv[0] = const_cast<char*>("paddock-init");
  command.envp[0] = command.plan_variable.data();
  command.envp[1] = command.channel_variable.data();
  command.keep = {prepared.channel_child.get(),
                  prepared.stdin_fd.get(),
                  prepared.stdout_pipe.write_end.get(),
                  prepared.stderr_pipe.write_end.get(),
                  plan_fd,
                  program};
  std::sort(command.keep.begin(), command.keep.end());
  command.exec = init::InitExec{program,
                                prepared.channel_child.get(),
                                command.keep.data(),
                                static_cast<int>(command.keep.size()),
                                command.argv,
                                command.envp};
}

// The sandbox's own cgroup exists before the child does, and the child is born in it: no
// instruction of the sandbox ever runs outside its limits.
core::Status make_cgroup(LaunchedSandbox& launched, cgroup::CgroupManager& cgroups,
                         const runtime::SandboxLimits& limits) {
  launched.cgroup = std::make_unique<cgroup::SandboxCgroup>(cgroups);
  if (cgroups.usable()) {
    if (auto made = launched.cgroup->create(limits); !made) {
      return made.error().context("creating the sandbox's cgroup");
    }
  }
  return {};
}

// The child's ends close here once init has its plan; paddock keeps the read ends and its
// channel.
void hand_over_streams(Prepared& prepared, StartedSandbox& sandbox) {
  prepared.channel_child.reset();
  prepared.stdin_fd.reset();
  prepared.stdout_pipe.write_end.reset();
  prepared.stderr_pipe.write_end.reset();
  sandbox.stdout_pipe = std::move(prepared.stdout_pipe.read_end);
  sandbox.stderr_pipe = std::move(prepared.stderr_pipe.read_end);
  sandbox.channel = std::move(prepared.channel_parent);
}

// How the sandbox's network comes, as launch_sandbox decides it.
struct NetworkStart {
  bool network_later = false;
  bool attach_network = false;
  bool keep_namespaces = false;
  bool late_network = false;
  unsigned long long flags = 0;  // the clone's
};

NetworkStart network_start(const runtime::SandboxShape& shape, const runtime::RunPlan& run,
                           LaunchMode mode) {
  // A session ready to give a later command a network is made so from the start.
  bool network_later = mode == LaunchMode::kSession && shape.session_networking;
  // An installer with an allowlist goes through the proxy: no user-mode network at all.
  bool attach_network = shape.network == runtime::NetworkMode::kUser ||
                        (run.networked_steps > 0 && !installer_uses_proxy(shape, run));
  // A session may be given networking later, for one command (an installer).
  bool keep_namespaces =
      attach_network || (network_later && shape.network != runtime::NetworkMode::kHost);
  // A sandbox with no network at all gets its network namespace from paddock-init's relay, made
  // beside the mount plan instead of in the clone (ChildPlan::late_network). What reaches into
  // the namespace before the program runs (pasta, the egress proxy's listener, the fence's
  // rules, a session's later network) needs it from the clone on.
  bool late_network = shape.network == runtime::NetworkMode::kNone && !keep_namespaces &&
                      !has_egress_proxy(shape, run, network_later);
  unsigned long long flags = kBaseNamespaces | CLONE_PIDFD;
  if (shape.network != runtime::NetworkMode::kHost && !late_network) flags |= CLONE_NEWNET;
  return NetworkStart{network_later, attach_network, keep_namespaces, late_network, flags};
}

// Clones the sandbox's first process into `cgroup_fd`'s cgroup, where it execs paddock-init.
core::Status start_sandbox_init(StartedSandbox& sandbox, unsigned long long flags, int cgroup_fd,
                                const init::InitExec& exec) {
  // No signal handler of paddock's may run in the child before it resets them.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int pidfd = -1;
  sandbox.started_at = std::chrono::steady_clock::now();
  pid_t pid = init::spawn_sandbox_init(flags, &pidfd, cgroup_fd, exec);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    if (clone_errno == ENOSPC || clone_errno == EPERM || clone_errno == EUSERS) {
      return core::system_error(
          "creating the sandbox's namespaces (are user namespaces enabled? see "
          "`paddock doctor`)",
          clone_errno);
    }
    return core::system_error("creating the sandbox", clone_errno);
  }
  // From here on, any return without the sandbox kills and reaps it (SandboxProcess).
  sandbox.init = SandboxProcess(pid, core::UniqueFd(pidfd));
  return {};
}

// The sandbox's egress proxy, with its brokered secrets.
core::Status start_egress_proxy(LaunchedSandbox& launched, const runtime::SandboxShape& shape,
                                const runtime::RunPlan& run, net::egress::SandboxSecrets secrets,
                                const net::egress::SecretBroker& broker) {
  auto policy = egress_policy(shape, run);
  if (!policy) return policy.error();
  policy->secrets = std::move(secrets);
  policy->tls = broker.tls;
  policy->secrets_in_body = broker.in_body;
  auto proxy = net::egress::EgressProxy::create(std::move(*policy));
  if (!proxy) return proxy.error();
  launched.egress = std::move(*proxy);
  return {};
}

// Once init's plan is written: the sandbox's namespaces held where it may get a network, its id
// maps written and its user-mode network attached; then paddock says go.
core::Status connect_and_go(LaunchedSandbox& launched, const runtime::SandboxShape& shape,
                            const init::SandboxIdentity& identity, bool keep_namespaces,
                            bool attach_network) {
  pid_t pid = launched.sandbox.init.pid();
  if (keep_namespaces) {
    auto opened = UserNetwork::open_namespaces(pid, identity.uid, identity.gid);
    if (!opened) {
      return opened.error();
    }
    launched.namespaces = std::move(*opened);
  }

  launched.ids =
      plan_id_map(id_map_host(), pid, identity.uid, identity.gid, launched.prepared->bind_writer);
  if (auto mapped = apply_id_map(pid, launched.ids); !mapped) {
    return mapped.error().context("writing the sandbox's uid/gid maps");
  }
  // User-mode networking before any step runs; killed at the step boundary or at the end.
  if (attach_network) {
    auto attached = UserNetwork::attach(*launched.namespaces, shape.host_loopback_ports);
    if (!attached) {
      return attached.error();
    }
    launched.network = std::move(*attached);
  }
  init::ChildMessage go{init::ChildMessageKind::kGo};
  if (write(launched.sandbox.channel.get(), &go, sizeof go) != sizeof go) {
    return core::system_error("starting the sandbox");
  }
  return {};
}

}  // namespace

core::Result<std::unique_ptr<LaunchedSandbox>> launch_sandbox(
    const runtime::SandboxShape& shape, const runtime::RunPlan& run, runtime::RunObserver& observer,
    LaunchMode mode, const net::egress::SecretBroker& broker) {
  if (auto valid = validate_spec(shape, run, mode == LaunchMode::kSession); !valid) {
    return valid.error();
  }
  cgroup::CgroupManager& cgroups = cgroup::host_cgroups();
  if (shape.require_cgroups && !cgroups.usable()) {
    return runtime::naming_setting(
        core::Error{ENOTSUP,
                    "cgroup v2 limits are required (no rlimit fallback, as "
                    "set) but " +
                        cgroups.reason() + "; see 'paddock doctor', or allow the fallback"},
        setting_names::kRequireCgroups);
  }
  auto launched = std::make_unique<LaunchedSandbox>();
  init::SandboxIdentity identity = identity_of(shape);
  auto [network_later, attach_network, keep_namespaces, late_network, flags] =
      network_start(shape, run, mode);

  // Brokered secrets: placeholders of this sandbox's own, in its environment and its proxy; a
  // sandbox without a proxy has no way to use them, and gets none.
  net::egress::SandboxSecrets secrets;
  if (broker.secrets && broker.tls && has_egress_proxy(shape, run, network_later)) {
    auto drawn = net::egress::SandboxSecrets::draw(broker.secrets);
    if (!drawn) return drawn.error();
    secrets = std::move(*drawn);
    launched->brokered_env = secrets.env();
    launched->localhost_proxied = secrets.for_localhost();
  }

  // Only what the child inherits is made before clone. The child execs paddock-init at once,
  // and its plan is made meanwhile (about 0.3 ms of a 0.5 ms exec on another core), written to
  // the memfd it was given, and sealed before paddock says go.
  auto streams = prepare_streams(run);
  if (!streams) return streams.error();
  launched->prepared = std::move(*streams);
  Prepared& prepared = *launched->prepared;
  auto program = open_init_program();
  if (!program) return program.error();
  auto plan_fd = plan_memfd();
  if (!plan_fd) return plan_fd.error();
  InitCommand command;
  fill_init_command(command, prepared, plan_fd->get(), program->get());
  const init::InitExec& exec = command.exec;

  if (auto made = make_cgroup(*launched, cgroups, shape.limits); !made) return made.error();

  StartedSandbox& sandbox = launched->sandbox;
  if (auto started = start_sandbox_init(sandbox, flags, launched->cgroup->fd(), exec); !started) {
    return started.error();
  }
  pid_t pid = sandbox.init.pid();
  if (auto planned = prepare_plan(prepared, shape, run, identity, cgroups.usable(), network_later,
                                  launched->brokered_env, launched->localhost_proxied);
      !planned) {
    return planned.error();
  }
  bool egress_proxy = has_egress_proxy(shape, run, network_later);
  init::ChildPlan plan =
      child_plan(shape, run, identity, prepared,
                 ChildStart{late_network, mode == LaunchMode::kSession, egress_proxy});
  if (egress_proxy) {
    if (auto started = start_egress_proxy(*launched, shape, run, std::move(secrets), broker);
        !started) {
      return started.error();
    }
  }
  if (auto written = write_plan(plan_fd->get(), plan); !written) return written.error();
  hand_over_streams(prepared, sandbox);
  sandbox.egress = launched->egress.get();
  observer.on_started(pid);
  if (auto going = connect_and_go(*launched, shape, identity, keep_namespaces, attach_network);
      !going) {
    return going.error();
  }
  return launched;
}

CgroupOutcome finish_cgroup(LaunchedSandbox& launched) {
  std::string directory = launched.cgroup->directory();
  return CgroupOutcome{directory, cgroup::host_cgroups().reason(), launched.cgroup->finish()};
}

}  // namespace paddock::native
