#include "app/server_config.h"

namespace paddock::app {

language::SpecOverrides spec_overrides(const ServerOptions& options) {
  language::SpecOverrides overrides;
  overrides.max_wall_seconds = options.max_timeout_seconds;
  overrides.env = options.pass_through_env;
  overrides.allowed_private_ranges = options.allowed_private_ranges;
  overrides.host_loopback_ports = options.host_loopback_ports;
  overrides.previews = options.allow_preview || options.ask_preview;
  overrides.allowed_hosts = options.allowed_hosts;
  overrides.ask_network = options.ask_network;
  overrides.max_collected_files = options.max_artifacts;
  overrides.max_collected_bytes = options.max_artifact_bytes;
  overrides.require_cgroups = options.require_cgroups;
  overrides.seccomp_profile_path = options.seccomp_profile;
  if (!options.trust_bundle.empty()) {
    overrides.trust_bundle = options.trust_bundle;
    for (auto& entry : net::egress::trust_env(runtime::kSandboxTrustBundle)) {
      overrides.env.push_back(std::move(entry));
    }
  }
  return overrides;
}

}  // namespace paddock::app
