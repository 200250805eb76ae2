#include "cli/mcp_settings.h"

#include "cli/host_paths.h"
#include "cli/secret_broker_setup.h"
#include "config/resolve.h"
#include "runtime/native/seccomp/seccomp_profile.h"

namespace paddock::cli {

core::Result<app::ServerOptions> resolve_server_options(const config::FlagValues& flags,
                                                        const config::Environment& env) {
  auto resolved = config::resolve(config::kMcp, flags, env);
  if (!resolved) return resolved.error();
  app::ServerOptions options = std::move(resolved->server);
  // Read now, so that a missing value fails the start rather than a call.
  for (const auto& given : resolved->secrets) {
    auto secret = brokered_secret(given.source, given.spec, env);
    if (!secret) return secret.error();
    options.secrets.push_back(std::move(*secret));
  }
  // Loaded now, as the native backend loads it for every sandbox: a broken profile stops the
  // start rather than failing each call.
  if (options.seccomp_profile && options.backend == "native") {
    if (auto profile = seccomp::load_profile_file(*options.seccomp_profile); !profile) {
      return profile.error();
    }
  }
  options.user_policy_dir = user_policy_directory(env);
  options.policy_variables = env;
  options.home = env("HOME");
  if (!options.state_dir_set) options.state_dir = default_state_directory(env);
  return options;
}

}  // namespace paddock::cli
