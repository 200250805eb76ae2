#include "runtime/native/egress_plan.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "runtime/native/network_fence.h"

namespace paddock {

Result<egress::EgressPolicy> egress_policy(const SandboxSpec& spec) {
  std::vector<egress::HostPattern> patterns;
  for (const auto& text : spec.allowed_hosts) {
    auto pattern = egress::parse_host_pattern(text);
    if (!pattern) return pattern.error();
    patterns.push_back(std::move(*pattern));
  }
  egress::EgressPolicy policy;
  policy.allow = egress::AllowList(std::move(patterns));
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

std::vector<std::string> egress_proxy_env() {
  std::string proxy = "http://127.0.0.1:" + std::to_string(egress::kProxyPort);
  // The sandbox's own loopback is reached directly (a test server and its client).
  const std::string local = "localhost,127.0.0.1,::1";
  return {"HTTP_PROXY=" + proxy,  "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy,
          "https_proxy=" + proxy, "NO_PROXY=" + local,    "no_proxy=" + local};
}

}  // namespace paddock
