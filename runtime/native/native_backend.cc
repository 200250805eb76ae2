#include "native/native_backend.h"

#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "native/artifacts.h"
#include "native/cgroup_manager.h"
#include "native/child.h"
#include "native/prepared_run.h"
#include "native/run_report.h"
#include "native/sandbox_cgroup.h"
#include "native/spec_validation.h"
#include "native/supervisor.h"
#include "native/user_network.h"

namespace paddock {
namespace {

constexpr unsigned long long kBaseNamespaces =
    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

}  // namespace

Result<RunResult> NativeBackend::run(const SandboxSpec& input, RunObserver& observer) {
  if (auto valid = validate_spec(input); !valid) return valid.error();
  const SandboxSpec& spec = input;
  CgroupManager& cgroups = host_cgroups();
  if (spec.require_cgroups && !cgroups.usable()) {
    return Error{ENOTSUP, "cgroup v2 limits are required (--require-cgroups) but " +
                              cgroups.reason() + "; see 'paddock doctor'"};
  }
  SandboxIdentity identity;
  identity.home = spec.workdir;
  auto prepared_or = prepare(spec, identity, cgroups.usable());
  if (!prepared_or) return prepared_or.error();
  Prepared& prepared = **prepared_or;

  ChildPlan plan;
  plan.mounts = &prepared.mounts;
  plan.uid = identity.uid;
  plan.gid = identity.gid;
  plan.setgroups_allowed =
      plan_id_map(id_map_host(), 1, identity.uid, identity.gid).setgroups_allowed;
  plan.hostname = spec.hostname.c_str();
  plan.rlimits = &prepared.rlimits;
  plan.cwd = prepared.cwd.c_str();
  plan.workdir = spec.workdir.c_str();
  plan.steps = &prepared.steps;
  plan.envp = prepared.envp.data();
  plan.search_path = &prepared.path_dirs;
  plan.seccomp = prepared.seccomp->as_fprog();
  plan.no_capabilities = static_cast<cap_t>(prepared.no_capabilities.get());
  plan.fds = ChildFds{prepared.channel_child.get(), prepared.stdin_fd.get(),
                      prepared.stdout_pipe.write_end.get(), prepared.stderr_pipe.write_end.get()};
  plan.bind_sources = &prepared.bind_sources;

  unsigned long long flags = kBaseNamespaces | CLONE_PIDFD;
  if (spec.network != NetworkMode::kHost) flags |= CLONE_NEWNET;
  bool user_network = spec.network == NetworkMode::kUser || spec.networked_prelude > 0;
  if (spec.network != NetworkMode::kUser && spec.networked_prelude > 0) {
    plan.pause_before_step = spec.networked_prelude;
  }

  // The sandbox's own cgroup exists before the child does, and the child is born in it: no
  // instruction of the sandbox ever runs outside its limits.
  SandboxCgroup cgroup(cgroups);
  if (cgroups.usable()) {
    if (auto made = cgroup.create(spec.limits); !made) {
      return made.error().context("creating the sandbox's cgroup");
    }
    flags |= CLONE_INTO_CGROUP;
  }

  // No signal handler of paddock's may run in the child before it resets them.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  StartedSandbox sandbox;
  int pidfd = -1;
  sandbox.started_at = std::chrono::steady_clock::now();
  pid_t pid = clone_process(flags, &pidfd, cgroup.fd());
  if (pid == 0) run_sandbox_init(plan);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    if (clone_errno == ENOSPC || clone_errno == EPERM || clone_errno == EUSERS) {
      return system_error(
          "creating the sandbox's namespaces (are user namespaces enabled? see "
          "`paddock doctor`)",
          clone_errno);
    }
    return system_error("creating the sandbox", clone_errno);
  }
  sandbox.pid = pid;
  sandbox.pidfd.reset(pidfd);
  prepared.channel_child.reset();
  prepared.stdin_fd.reset();
  prepared.stdout_pipe.write_end.reset();
  prepared.stderr_pipe.write_end.reset();
  sandbox.stdout_pipe = std::move(prepared.stdout_pipe.read_end);
  sandbox.stderr_pipe = std::move(prepared.stderr_pipe.read_end);
  sandbox.channel = std::move(prepared.channel_parent);
  observer.on_started(pid);
  std::optional<UserNetwork::Namespaces> network_namespaces;
  if (user_network) {
    auto opened = UserNetwork::open_namespaces(pid);
    if (!opened) {
      kill_and_reap(sandbox);
      return opened.error();
    }
    network_namespaces = std::move(*opened);
  }

  IdMapPlan ids = plan_id_map(id_map_host(), pid, identity.uid, identity.gid);
  if (auto mapped = apply_id_map(pid, ids); !mapped) {
    kill_and_reap(sandbox);
    return mapped.error().context("writing the sandbox's uid/gid maps");
  }
  // User-mode networking before any step runs; killed at the step boundary or at the end.
  UserNetwork network;
  if (user_network) {
    auto attached = UserNetwork::attach(*network_namespaces);
    if (!attached) {
      kill_and_reap(sandbox);
      return attached.error();
    }
    network = std::move(*attached);
    sandbox.at_step_boundary = [&network] { network.detach(); };
  }
  ChildMessage go{ChildMessageKind::kGo};
  if (write(sandbox.channel.get(), &go, sizeof go) != sizeof go) {
    Error error = system_error("starting the sandbox");
    kill_and_reap(sandbox);
    return error;
  }
  Supervised done = supervise(sandbox, spec.limits, observer);
  std::vector<Artifact> artifacts;
  bool artifacts_truncated = false;
  if (done.workdir.valid() && !spec.collect.directories.empty()) {
    artifacts = collect_artifacts(done.workdir.get(), spec.collect, &artifacts_truncated);
  }
  done.workdir.reset();  // the sandbox's last file system goes with it
  CgroupOutcome outcome{cgroup.directory(), cgroups.reason(), cgroup.finish()};
  auto result = to_run_result(spec, prepared, ids, std::move(done), outcome);
  if (result) {
    result->artifacts = std::move(artifacts);
    result->artifacts_truncated = artifacts_truncated;
  }
  return result;
}

}  // namespace paddock
