#include "config/resolve.h"

#include "config/table.h"
#include "core/units.h"

namespace paddock::config {
namespace {

core::Status check_network(const Options& options) {
  const app::ServerOptions& server = options.server;
  if (!options.secrets.empty() && server.backend != "native") {
    return core::invalid_input(
        "--secret needs the native backend, whose egress proxy brokers it; "
        "leave --backend at native or the secrets out");
  }
  // Brokered secrets and the allowlist reach out through the egress proxy, which only a
  // sandbox without a network of its own has.
  bool networked = server.network && *server.network != runtime::NetworkMode::kNone;
  if (!options.secrets.empty() && networked) {
    return core::invalid_input(
        std::string("--secret goes through the egress proxy, the programs' only "
                    "network: it cannot be combined with --network ") +
        runtime::to_string(*server.network));
  }
  if (!server.allowed_hosts.empty() && networked) {
    return core::invalid_input(
        std::string("--allow-host is the programs' only network: it cannot be "
                    "combined with --network ") +
        runtime::to_string(*server.network));
  }
  return {};
}

// A pod cannot load a file of this host: its profile is one installed on the nodes, named by
// --kube-seccomp-profile. Refused rather than ignored, so the operator's profile is never
// silently replaced by the runtime's.
core::Status check_seccomp(const app::ServerOptions& server) {
  if (server.seccomp_profile && server.backend == "kubernetes") {
    return core::invalid_input(
        "--seccomp-profile is a file on this host, which a Kubernetes pod cannot load; install "
        "the profile on every node and name it with --kube-seccomp-profile");
  }
  return {};
}

// The server's own: a call's timeout and a session's idle time have ceilings.
core::Status check_server(const app::ServerOptions& server) {
  if (server.limits.wall_seconds && *server.limits.wall_seconds > server.max_timeout_seconds) {
    return core::invalid_input(
        "the default timeout (" + core::seconds_text(*server.limits.wall_seconds) +
        ") is over the longest allowed (--max-timeout, " +
        core::seconds_text(server.max_timeout_seconds) + "); lower the one or raise the other");
  }
  if (server.session_idle_seconds > server.max_session_idle_seconds) {
    return core::invalid_input("--session-idle is over 24 h, the longest a session may stay idle");
  }
  return {};
}

}  // namespace

core::Status resolve_settings(const std::vector<Setting>& table, Command command,
                              const FlagValues& flags, const Environment& env, Options& options) {
  for (const auto& row : table) {
    if (!row.takes(command)) continue;
    for (const auto& given : given_values(row, command, flags, env)) {
      if (auto set = row.set(given, env, options); !set) return set;
    }
  }
  return {};
}

namespace {

core::Status apply_presets(const std::vector<Preset>& presets, Command command,
                           const Environment& env, Options& options) {
  for (const auto& preset : presets) {
    const Setting* row = find_setting(preset.flag, command);
    if (row == nullptr) {
      return core::invalid_input(preset.where + ": not a setting of this command");
    }
    if (auto set = row->set(Given(preset.value, preset.where), env, options); !set) return set;
  }
  return {};
}

}  // namespace

core::Result<Options> resolve(Command command, const FlagValues& flags, const Environment& env,
                              const std::vector<Preset>& presets) {
  Options options;
  if (auto set = apply_presets(presets, command, env, options); !set) return set.error();
  if (auto set = resolve_settings(settings_table(), command, flags, env, options); !set) {
    return set.error();
  }
  if (command == kMcp) {
    if (auto checked = check_server(options.server); !checked) return checked.error();
  }
  if (auto checked = check_network(options); !checked) return checked.error();
  if (auto checked = check_seccomp(options.server); !checked) return checked.error();
  return options;
}

}  // namespace paddock::config
