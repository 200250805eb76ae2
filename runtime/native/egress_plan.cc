#include "runtime/native/egress_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "runtime/native/network_fence.h"

namespace paddock {

Result<egress::AllowList> allow_list(const std::vector<std::string>& texts) {
  std::vector<egress::HostPattern> patterns;
  for (const auto& text : texts) {
    auto pattern = egress::parse_host_pattern(text);
    if (!pattern) return pattern.error();
    patterns.push_back(std::move(*pattern));
  }
  return egress::AllowList(std::move(patterns));
}

bool installer_uses_proxy(const SandboxSpec& spec) {
  return !spec.installer_allowed_hosts.empty() && spec.network == NetworkMode::kNone;
}

bool has_egress_proxy(const SandboxSpec& spec, bool session) {
  return !spec.allowed_hosts.empty() ||
         (installer_uses_proxy(spec) && (session || spec.networked_prelude > 0));
}

Result<egress::EgressPolicy> egress_policy(const SandboxSpec& spec) {
  // A run starts with its installer, if it has one that goes through the proxy.
  bool installer_first = spec.networked_prelude > 0 && installer_uses_proxy(spec);
  auto allow = allow_list(installer_first ? spec.installer_allowed_hosts : spec.allowed_hosts);
  if (!allow) return allow.error();
  egress::EgressPolicy policy;
  policy.allow = std::move(*allow);
  policy.forbidden = refused_ranges();
  for (const auto& address : probe_host_addresses()) policy.forbidden.push_back(address);
  // NAME=ADDRESS,...: the tests' own names for local servers (docs/security.md).
  if (const char* fixed = getenv("PADDOCK_EGRESS_TEST_RESOLVE"); fixed != nullptr) {
    std::string_view rest = fixed;
    while (!rest.empty()) {
      std::string_view item = rest.substr(0, rest.find(','));
      rest.remove_prefix(std::min(rest.size(), item.size() + 1));
      auto equals = item.find('=');
      if (equals == std::string_view::npos) continue;
      policy.fixed_addresses[std::string(item.substr(0, equals))] =
          std::string(item.substr(equals + 1));
    }
  }
  return policy;
}

}  // namespace paddock
