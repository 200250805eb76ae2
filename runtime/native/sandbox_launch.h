#pragma once

// Starting a native sandbox, shared by one-off runs and sessions: validate the spec, make its
// cgroup, prepare everything the child reads, clone it into its namespaces (and its cgroup),
// write the id maps, attach user-mode networking when asked, and let it go.

#include <memory>
#include <optional>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/native/cgroup/cgroup_manager.h"
#include "runtime/native/cgroup/sandbox_cgroup.h"
#include "runtime/native/id_map.h"
#include "runtime/native/prepared_run.h"
#include "runtime/native/run_report.h"
#include "runtime/native/supervisor.h"
#include "runtime/native/user_network.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

struct LaunchedSandbox {
  std::unique_ptr<Prepared> prepared;
  IdMapPlan ids;
  std::unique_ptr<cgroup::SandboxCgroup> cgroup;
  StartedSandbox sandbox;
  // The sandbox's user and network namespaces, kept when networking may be attached later.
  std::optional<UserNetwork::Namespaces> namespaces;
  UserNetwork network;  // attached from the start when the shape or plan asks for it
  // With an egress allowlist: the proxy that is the sandbox's only way out (net/egress/proxy.h).
  std::unique_ptr<net::egress::EgressProxy> egress;
  // NAME=PLACEHOLDER of its brokered secrets (docs/secrets.md), drawn for this sandbox alone.
  std::vector<std::string> brokered_env;
  bool localhost_proxied = false;  // a brokered secret is for localhost (net::egress::proxy_env)
};

enum class LaunchMode {
  kRun,      // init runs the plan's steps, then the sandbox ends
  kSession,  // init serves commands until it is killed (see session_channel.h)
};

core::Result<std::unique_ptr<LaunchedSandbox>> launch_sandbox(
    const runtime::SandboxShape& shape, const runtime::RunPlan& run, runtime::RunObserver& observer,
    LaunchMode mode, const net::egress::SecretBroker& broker = {});

// What the sandbox's cgroup did, and the cgroup removed.
CgroupOutcome finish_cgroup(LaunchedSandbox& launched);

}  // namespace paddock::native
