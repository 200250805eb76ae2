#include "mcp/server_config.h"

#include <algorithm>
#include <cstdlib>

#include "core/ip_prefix.h"
#include "core/units.h"
#include "egress/host_pattern.h"
#include "rootfs/image_reference.h"
#include "runtime/kube/localhost_profile.h"

namespace paddock::mcp {
namespace {

// One setting's text and where it came from, so an error names what the user wrote.
struct Given {
  std::string text;
  std::string source;  // "--memory" or "PADDOCK_MEMORY"

  [[nodiscard]] Error invalid(const std::string& what, const std::string& example) const {
    std::string shown =
        source.starts_with("--") ? source + " '" + text + "'" : source + "='" + text + "'";
    return invalid_input(shown + " is not " + what + "; use e.g. " + example);
  }
};

class Settings {
 public:
  Settings(const McpFlags& flags, const Environment& env) : flags_(flags), env_(env) {}

  // The flag when given, else the first variable that is set.
  std::optional<Given> pick(const std::optional<std::string>& flag, const char* flag_name,
                            std::initializer_list<const char*> variables) const {
    if (flag) return Given{*flag, flag_name};
    for (const char* variable : variables) {
      if (auto value = env_(variable)) return Given{*value, variable};
    }
    return std::nullopt;
  }
  [[nodiscard]] const Environment& env() const { return env_; }
  [[nodiscard]] const McpFlags& flags() const { return flags_; }

 private:
  const McpFlags& flags_;
  const Environment& env_;
};

// "A,B,,C" -> A, B, C: the lists flags and variables take.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

Status set_count(const std::optional<Given>& given, std::uint64_t low, std::uint64_t high,
                 const char* example, auto& target) {
  if (!given) return {};
  auto value = parse_count(given->text);
  if (!value || *value < low || *value > high) {
    return given->invalid(
        "a whole number from " + std::to_string(low) + " to " + std::to_string(high), example);
  }
  target = static_cast<std::remove_reference_t<decltype(target)>>(*value);
  return {};
}

Status set_duration(const std::optional<Given>& given, const char* example, double& target) {
  if (!given) return {};
  auto value = parse_seconds(given->text);
  if (!value || *value <= 0) return given->invalid("a duration", example);
  target = *value;
  return {};
}

Status set_size(const std::optional<Given>& given, const char* example,
                std::optional<std::uint64_t>& target) {
  if (!given) return {};
  auto value = parse_size(given->text);
  if (!value || *value == 0) return given->invalid("a size", example);
  target = *value;
  return {};
}

Status set_size(const std::optional<Given>& given, const char* example, std::uint64_t low,
                std::uint64_t high, std::uint64_t& target) {
  std::optional<std::uint64_t> value;
  if (auto set = set_size(given, example, value); !set) return set;
  if (!value) return {};
  if (*value < low || *value > high) {
    return given->invalid(
        "a size from " + std::to_string(low) + " to " + std::to_string(high) + " bytes", example);
  }
  target = *value;
  return {};
}

// What a tool result carries: the share of a model's context one call may take.
Status set_result_caps(const Settings& settings, ServerOptions& options) {
  const McpFlags& flags = settings.flags();
  // Images travel base64 in one message of at most 8 MiB, beside the output.
  constexpr std::uint64_t kMaxArtifactBytes = 5u << 20;
  for (auto status : {
           set_size(settings.pick(flags.result_limit, "--result-limit", {"PADDOCK_RESULT_LIMIT"}),
                    "64k", 1024, 1u << 20, options.result_stream_bytes),
           set_count(
               settings.pick(flags.artifact_limit, "--artifact-limit", {"PADDOCK_ARTIFACT_LIMIT"}),
               0, 1000, "20", options.max_artifacts),
           set_size(
               settings.pick(flags.artifact_bytes, "--artifact-bytes", {"PADDOCK_ARTIFACT_BYTES"}),
               "4m", 1, kMaxArtifactBytes, options.max_artifact_bytes),
       }) {
    if (!status) return status;
  }
  return {};
}

Status set_limits(const Settings& settings, ServerOptions& options) {
  const McpFlags& flags = settings.flags();
  LimitOverrides& limits = options.limits;
  if (auto given = settings.pick(flags.timeout, "--timeout", {"PADDOCK_TIMEOUT"})) {
    double seconds = 0;
    if (auto set = set_duration(given, "30s", seconds); !set) return set;
    limits.wall_seconds = seconds;
  }
  if (auto set = set_size(settings.pick(flags.memory, "--memory", {"PADDOCK_MEMORY"}), "512m",
                          limits.memory_bytes);
      !set) {
    return set;
  }
  if (auto set =
          set_size(settings.pick(flags.output_limit, "--output-limit", {"PADDOCK_OUTPUT_LIMIT"}),
                   "1m", limits.output_bytes);
      !set) {
    return set;
  }
  if (auto given = settings.pick(flags.pids, "--pids", {"PADDOCK_PIDS"})) {
    std::uint32_t pids = 0;
    if (auto set = set_count(given, 2, 1'000'000, "256", pids); !set) return set;
    limits.pids = pids;
  }
  if (auto given = settings.pick(flags.cpus, "--cpus", {"PADDOCK_CPUS"})) {
    auto cpus = parse_decimal(given->text);
    if (!cpus || *cpus <= 0 || *cpus > 1024) return given->invalid("a CPU count", "0.5 or 2");
    limits.cpus = *cpus;
  }
  return {};
}

Status set_networks(const Settings& settings, ServerOptions& options) {
  if (auto given = settings.pick(settings.flags().network, "--network", {"PADDOCK_NETWORK"})) {
    if (given->text == "none") {
      options.network = NetworkMode::kNone;
    } else if (given->text == "user") {
      options.network = NetworkMode::kUser;
    } else if (given->text == "host") {
      options.network = NetworkMode::kHost;
    } else {
      return given->invalid("a network mode", "none, user or host");
    }
  }
  if (auto given = settings.pick(settings.flags().install_network, "--install-network",
                                 {"PADDOCK_INSTALL_NETWORK"})) {
    if (given->text != "none" && given->text != "allowlist" && given->text != "user" &&
        given->text != "host") {
      return given->invalid("a network mode", "none, allowlist, user or host");
    }
    options.install_network = given->text;
  }
  if (auto given = settings.pick(settings.flags().allow_private, "--allow-private",
                                 {"PADDOCK_ALLOW_PRIVATE"})) {
    for (const auto& range : split_list(given->text)) {
      if (!parse_ip_prefix(range)) return given->invalid("a list of CIDR ranges", "10.1.2.0/24");
      options.allowed_private_ranges.push_back(range);
    }
  }
  if (auto given = settings.pick(settings.flags().host_loopback_ports, "--host-loopback-port",
                                 {"PADDOCK_HOST_LOOPBACK_PORTS"})) {
    for (const auto& text : split_list(given->text)) {
      auto port = parse_count(text);
      if (!port || *port == 0 || *port > 65535) return given->invalid("a list of ports", "3141");
      options.host_loopback_ports.push_back(static_cast<std::uint16_t>(*port));
    }
  }
  return {};
}

// NAME1,NAME2: each must be set in the server's environment, so a typo is caught at start
// rather than showing up as a missing variable inside someone's program.
Status set_pass_through(const Settings& settings, ServerOptions& options) {
  auto given = settings.pick(settings.flags().pass_through_env, "--pass-through-env",
                             {"PADDOCK_PASS_THROUGH_ENV"});
  if (!given) return {};
  for (const auto& name : split_list(given->text)) {
    bool valid = name.find_first_not_of(
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_") == std::string::npos &&
                 !(name[0] >= '0' && name[0] <= '9');
    if (!valid) return given->invalid("a list of variable names", "API_KEY,SECRET_TOKEN");
    if (name.starts_with("PADDOCK_")) {
      return invalid_input(given->source + ": " + name +
                           " is paddock's own; PADDOCK_ variables cannot be passed through");
    }
    auto value = settings.env()(name);
    if (!value) {
      return invalid_input(given->source + " names " + name +
                           ", which is not set in the server's environment; set it (in the "
                           "client's \"env\" block) or leave it out");
    }
    options.pass_through_env.push_back(name + "=" + *value);
  }
  return {};
}

Status add_image(const Given& given, const std::string& assignment, ServerOptions& options) {
  auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == assignment.size()) {
    return given.invalid("LANG=IMAGE", "python=python:3.12-slim");
  }
  std::string language = assignment.substr(0, equals);
  std::string reference = assignment.substr(equals + 1);
  if (auto parsed = rootfs::parse_image_reference(reference); !parsed) {
    return invalid_input(given.source + " " + assignment + ": " + parsed.error().message);
  }
  options.images[language] = reference;
  return {};
}

// Lowest first: CONTAINER_IMAGE with CONTAINER_LANGUAGE (as code-sandbox-mcp takes them), then
// PADDOCK_IMAGES (LANG=REF,LANG=REF), then each --image; a later one wins for its language.
Status set_images(const Settings& settings, ServerOptions& options) {
  const Environment& env = settings.env();
  auto image = env("CONTAINER_IMAGE");
  auto language = env("CONTAINER_LANGUAGE");
  if (image && !language) {
    return invalid_input(
        "CONTAINER_IMAGE is set without CONTAINER_LANGUAGE; set CONTAINER_LANGUAGE to the "
        "language the image runs (e.g. python)");
  }
  if (language && !image) {
    return invalid_input("CONTAINER_LANGUAGE is set without CONTAINER_IMAGE; set both or neither");
  }
  if (image) {
    if (auto added = add_image({*image, "CONTAINER_IMAGE"}, *language + "=" + *image, options);
        !added) {
      return added;
    }
  }
  if (auto list = env("PADDOCK_IMAGES")) {
    for (const auto& assignment : split_list(*list)) {
      if (auto added = add_image({*list, "PADDOCK_IMAGES"}, assignment, options); !added) {
        return added;
      }
    }
  }
  for (const auto& assignment : settings.flags().images) {
    if (auto added = add_image({assignment, "--image"}, assignment, options); !added) {
      return added;
    }
  }
  if (auto given = settings.pick(settings.flags().pull, "--pull", {"PADDOCK_PULL"})) {
    if (given->text != "missing" && given->text != "never") {
      return given->invalid("a pull policy", "missing (the default) or never");
    }
    options.pull_missing_images = given->text == "missing";
  }
  return {};
}

// A repeatable setting: its variable's items (comma-separated) first, then each flag's.
std::vector<Given> listed(const Settings& settings, const char* variable,
                          const std::vector<std::string>& flags, const char* flag) {
  std::vector<Given> given;
  if (auto list = settings.env()(variable)) {
    for (const auto& item : split_list(*list)) given.push_back({item, variable});
  }
  for (const auto& item : flags) given.push_back({item, flag});
  return given;
}

Status set_allowed_hosts(const Settings& settings, ServerOptions& options) {
  for (const auto& item :
       listed(settings, "PADDOCK_ALLOW_HOSTS", settings.flags().allowed_hosts, "--allow-host")) {
    if (auto pattern = egress::parse_host_pattern(item.text); !pattern) {
      return invalid_input(item.source + ": " + pattern.error().message);
    }
    options.allowed_hosts.push_back(item.text);
  }
  if (!options.allowed_hosts.empty() && options.network && *options.network != NetworkMode::kNone) {
    return invalid_input(std::string("--allow-host is the programs' only network: it cannot be "
                                     "combined with --network ") +
                         to_string(*options.network));
  }
  return {};
}

Status set_shares(const Settings& settings, ServerOptions& options) {
  for (const auto& item : listed(settings, "PADDOCK_SHARE", settings.flags().shares, "--share")) {
    auto spec = parse_share_spec(item.text);
    if (!spec) return invalid_input(item.source + ": " + spec.error().message);
    options.shares.push_back(std::move(*spec));
  }
  const McpFlags& flags = settings.flags();
  std::optional<std::uint64_t> bytes;
  if (auto set = set_size(
          settings.pick(flags.share_max_bytes, "--share-max-bytes", {"PADDOCK_SHARE_MAX_BYTES"}),
          "1g", bytes);
      !set) {
    return set;
  }
  if (bytes) options.transfer_caps.max_bytes = *bytes;
  return set_count(
      settings.pick(flags.share_max_files, "--share-max-files", {"PADDOCK_SHARE_MAX_FILES"}), 1,
      1'000'000, "10000", options.transfer_caps.max_files);
}

Status set_server(const Settings& settings, ServerOptions& options) {
  const McpFlags& flags = settings.flags();
  if (auto given = settings.pick(flags.backend, "--backend", {"PADDOCK_BACKEND", "BACKEND"})) {
    if (given->text != "native" && given->text != "docker" && given->text != "podman" &&
        given->text != "kubernetes") {
      return given->invalid("a backend", "native, docker, podman or kubernetes");
    }
    options.backend = given->text;
  }
  if (auto given = settings.pick(flags.kube_namespace, "--namespace", {"PADDOCK_KUBE_NAMESPACE"})) {
    // A DNS label (RFC 1123), as Kubernetes requires; it also goes into API paths.
    const std::string& name = given->text;
    bool label =
        !name.empty() && name.size() <= 63 &&
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos &&
        name.front() != '-' && name.back() != '-';
    if (!label) return given->invalid("a namespace name", "sandboxes (a-z, 0-9 and -)");
    options.kube_namespace = name;
  }
  if (auto given = settings.pick(flags.kube_seccomp_profile, "--kube-seccomp-profile",
                                 {"PADDOCK_KUBE_SECCOMP_PROFILE"})) {
    if (!kube::valid_localhost_profile(given->text)) {
      return given->invalid(kube::kLocalhostProfileRule, kube::kLocalhostProfileExample);
    }
    options.kube_seccomp_profile = given->text;
  }
  if (auto given = settings.pick(flags.policy_dir, "--policy-dir", {"PADDOCK_POLICY_DIR"})) {
    options.policy_dir = given->text;
  }
  if (auto given = settings.pick(flags.default_language, "--default-language",
                                 {"PADDOCK_DEFAULT_LANGUAGE"})) {
    options.default_language = given->text;
  }
  if (auto given = settings.pick(flags.log_level, "--log-level", {"PADDOCK_LOG_LEVEL"})) {
    if (given->text != "debug" && given->text != "info" && given->text != "notice" &&
        given->text != "warning" && given->text != "error") {
      return given->invalid("a log level", "debug, info, notice, warning or error");
    }
    options.log_level = given->text;
  }
  if (auto given = settings.pick(flags.audit_log, "--audit-log", {"PADDOCK_AUDIT_LOG"})) {
    if (!given->text.starts_with("/")) return given->invalid("an absolute path", "/var/log/x");
    options.audit_log = given->text;
  }
  for (auto status : {
           set_count(settings.pick(flags.workers, "--workers", {"PADDOCK_WORKERS"}), 1, 256, "8",
                     options.workers),
           set_count(settings.pick(flags.max_sessions, "--max-sessions", {"PADDOCK_MAX_SESSIONS"}),
                     0, 4096, "16", options.max_sessions),
           set_count(settings.pick(flags.warm, "--warm", {"PADDOCK_WARM"}), 0, 64, "2",
                     options.warm_per_language),
           set_duration(
               settings.pick(flags.session_idle, "--session-idle", {"PADDOCK_SESSION_IDLE"}), "30m",
               options.session_idle_seconds),
           set_duration(settings.pick(flags.max_timeout, "--max-timeout", {"PADDOCK_MAX_TIMEOUT"}),
                        "5m", options.max_timeout_seconds),
           set_duration(settings.pick(flags.pod_start_timeout, "--pod-start-timeout",
                                      {"PADDOCK_POD_START_TIMEOUT"}),
                        "10m", options.pod_start_seconds),
       }) {
    if (!status) return status;
  }
  return {};
}

}  // namespace

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

Result<ServerOptions> resolve_server_options(const McpFlags& flags, const Environment& env) {
  Settings settings(flags, env);
  ServerOptions options;
  for (auto* step : {set_server, set_limits, set_result_caps, set_networks, set_pass_through,
                     set_images, set_shares, set_allowed_hosts}) {
    if (auto status = step(settings, options); !status) return status.error();
  }
  if (options.limits.wall_seconds && *options.limits.wall_seconds > options.max_timeout_seconds) {
    return invalid_input("the default timeout (" + seconds_text(*options.limits.wall_seconds) +
                         ") is over the longest allowed (--max-timeout, " +
                         seconds_text(options.max_timeout_seconds) +
                         "); lower the one or raise the other");
  }
  if (options.session_idle_seconds > options.max_session_idle_seconds) {
    return invalid_input("--session-idle is over 24 h, the longest a session may stay idle");
  }
  return options;
}

}  // namespace paddock::mcp
