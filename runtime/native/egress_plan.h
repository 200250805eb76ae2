#pragma once

// A run with an egress allowlist (SandboxShape::allowed_hosts), as the native backend sets it
// up: the proxy's policy (the patterns, and the ranges no name may resolve to: those user-mode
// networking refuses, and this host's own addresses), and the variables that point the
// program's HTTP clients at the proxy on the sandbox's own loopback.

#include <string>
#include <vector>

#include "core/result.h"
#include "net/egress/proxy.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

// Whether the installer reaches out through the proxy, with its own list: only when the run has
// no network of its own (with --network user or host, every step has that network).
bool installer_uses_proxy(const runtime::SandboxShape& shape, const runtime::RunPlan& plan);

// Whether `shape` and `plan` needs the proxy: the program has an allowlist, or an installer with
// one may run (a one-off run's install step; in a session, any later command).
bool has_egress_proxy(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                      bool session);

// The patterns as a list; an error names the first that does not parse, and the accepted forms.
core::Result<net::egress::AllowList> allow_list(const std::vector<std::string>& texts);

// The policy the proxy starts with: the installer's list if the run starts with an installer
// that has one, else the program's.
core::Result<net::egress::EgressPolicy> egress_policy(const runtime::SandboxShape& shape,
                                                      const runtime::RunPlan& plan);

}  // namespace paddock::native
