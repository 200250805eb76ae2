#pragma once

// A run with an egress allowlist (SandboxSpec::allowed_hosts), as the native backend sets it
// up: the proxy's policy (the patterns, and the ranges no name may resolve to: those user-mode
// networking refuses, and this host's own addresses), and the variables that point the
// program's HTTP clients at the proxy on the sandbox's own loopback.

#include <string>
#include <vector>

#include "core/result.h"
#include "egress/proxy.h"
#include "runtime/sandbox_spec.h"

namespace paddock {

// The policy; an error names the first pattern that does not parse, and the accepted forms.
Result<egress::EgressPolicy> egress_policy(const SandboxSpec& spec);

// HTTP_PROXY, HTTPS_PROXY and NO_PROXY, in both cases, for the proxy at kProxyPort.
std::vector<std::string> egress_proxy_env();

}  // namespace paddock
