#include "cli/mcp_settings.h"

#include <algorithm>
#include <initializer_list>
#include <type_traits>

#include "cli/host_paths.h"
#include "cli/secret_broker_setup.h"
#include "core/ip_prefix.h"
#include "core/units.h"
#include "language/warm_spec.h"
#include "net/egress/host_pattern.h"
#include "net/preview/forwarder.h"
#include "rootfs/image_reference.h"
#include "runtime/kube/localhost_profile.h"

namespace paddock::cli {
namespace {

using Options = mcp::ServerOptions;
using Env = const Environment&;

// The parsers the rows share; each error names the value as written.

Result<std::uint64_t> whole_number(const Given& given, std::uint64_t low, std::uint64_t high,
                                   const char* example) {
  auto value = parse_count(given.text);
  if (!value || *value < low || *value > high) {
    return given.invalid(
        "a whole number from " + std::to_string(low) + " to " + std::to_string(high), example);
  }
  return *value;
}

Result<double> duration(const Given& given, const char* example) {
  auto value = parse_seconds(given.text);
  if (!value || *value <= 0) return given.invalid("a duration", example);
  return *value;
}

// A duration where 0 turns something off.
Result<double> duration_or_off(const Given& given, const char* example) {
  auto value = parse_seconds(given.text);
  if (!value || *value < 0) return given.invalid("a duration", example);
  return *value;
}

Result<std::uint64_t> byte_size(const Given& given, const char* example) {
  auto value = parse_size(given.text);
  if (!value || *value == 0) return given.invalid("a size", example);
  return *value;
}

Result<std::uint64_t> byte_size(const Given& given, const char* example, std::uint64_t low,
                                std::uint64_t high) {
  auto value = byte_size(given, example);
  if (value && (*value < low || *value > high)) {
    return given.invalid(
        "a size from " + std::to_string(low) + " to " + std::to_string(high) + " bytes", example);
  }
  return value;
}

Result<std::string> one_of(const Given& given, std::initializer_list<const char*> choices,
                           const char* what, const char* example) {
  for (const char* choice : choices) {
    if (given.text == choice) return given.text;
  }
  return given.invalid(what, example);
}

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A parsed value into its field (converted to the field's type), or the parser's error.
template <typename Field, typename Value>
Status assign(Field& field, const Result<Value>& value) {
  if (!value) return value.error();
  if constexpr (IsOptional<Field>::value) {
    field = static_cast<typename Field::value_type>(*value);
  } else {
    field = static_cast<Field>(*value);
  }
  return {};
}

Status set_cpus(const Given& given, Env, Options& options) {
  auto cpus = parse_decimal(given.text);
  if (!cpus || *cpus <= 0 || *cpus > 1024) return given.invalid("a CPU count", "0.5 or 2");
  options.limits.cpus = *cpus;
  return {};
}

Status set_network(const Given& given, Env, Options& options) {
  if (given.text == "none") {
    options.network = NetworkMode::kNone;
  } else if (given.text == "user") {
    options.network = NetworkMode::kUser;
  } else if (given.text == "host") {
    options.network = NetworkMode::kHost;
  } else {
    return given.invalid("a network mode", "none, user or host");
  }
  return {};
}

Status set_private_ranges(const Given& given, Env, Options& options) {
  for (const auto& range : split_list(given.text)) {
    if (!parse_ip_prefix(range)) return given.invalid("a list of CIDR ranges", "10.1.2.0/24");
    options.allowed_private_ranges.push_back(range);
  }
  return {};
}

Status set_loopback_ports(const Given& given, Env, Options& options) {
  for (const auto& text : split_list(given.text)) {
    auto port = parse_count(text);
    if (!port || *port == 0 || *port > 65535) return given.invalid("a list of ports", "3141");
    options.host_loopback_ports.push_back(static_cast<std::uint16_t>(*port));
  }
  return {};
}

// NAME1,NAME2: each must be set in the server's environment, so a typo is caught at start
// rather than showing up as a missing variable inside someone's program.
Status set_pass_through(const Given& given, Env env, Options& options) {
  for (const auto& name : split_list(given.text)) {
    bool valid = name.find_first_not_of(
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_") == std::string::npos &&
                 !(name[0] >= '0' && name[0] <= '9');
    if (!valid) return given.invalid("a list of variable names", "API_KEY,SECRET_TOKEN");
    if (name.starts_with("PADDOCK_")) {
      return invalid_input(given.source + ": " + name +
                           " is paddock's own; PADDOCK_ variables cannot be passed through");
    }
    auto value = env(name);
    if (!value) {
      return invalid_input(given.source + " names " + name +
                           ", which is not set in the server's environment; set it (in the "
                           "client's \"env\" block) or leave it out");
    }
    options.pass_through_env.push_back(name + "=" + *value);
  }
  return {};
}

// LANG=REF; a later one wins for its language.
Status add_image(const Given& given, const std::string& assignment, Options& options) {
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

// CONTAINER_IMAGE with CONTAINER_LANGUAGE, as code-sandbox-mcp takes them: one or the other
// alone is an error.
Status set_container_image(const Given& given, Env env, Options& options) {
  auto language = env("CONTAINER_LANGUAGE");
  if (!language) {
    return invalid_input(
        "CONTAINER_IMAGE is set without CONTAINER_LANGUAGE; set CONTAINER_LANGUAGE to the "
        "language the image runs (e.g. python)");
  }
  return add_image(given, *language + "=" + given.text, options);
}

Status check_container_language(const Given& /*given*/, Env env, Options& /*options*/) {
  if (!env("CONTAINER_IMAGE")) {
    return invalid_input("CONTAINER_LANGUAGE is set without CONTAINER_IMAGE; set both or neither");
  }
  return {};
}

// "off", or LANG=MODULES[;LANG=MODULES...]: the warm interpreters' preload lists (an empty list
// preloads nothing).
Status set_preload(const Given& given, Env, Options& options) {
  if (given.text == "off") {
    options.warm_interpreters = false;
    return {};
  }
  std::string text = given.text;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = std::min(text.find(';', start), text.size());
    std::string assignment = text.substr(start, end - start);
    start = end + 1;
    if (assignment.empty()) continue;
    auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      return given.invalid("off, or LANG=MODULES", "python=numpy,pandas");
    }
    std::vector<std::string> modules = split_list(assignment.substr(equals + 1));
    for (const auto& name : modules) {
      if (auto valid = check_preload_name(name); !valid) {
        return invalid_input(given.source + ": " + valid.error().message);
      }
    }
    options.preload[assignment.substr(0, equals)] = std::move(modules);
  }
  return {};
}

Status add_allowed_host(const Given& given, Env, Options& options) {
  if (auto pattern = net::egress::parse_host_pattern(given.text); !pattern) {
    return invalid_input(given.source + ": " + pattern.error().message);
  }
  options.allowed_hosts.push_back(given.text);
  return {};
}

// NAME=ENVVAR@HOST,...: the value is read now, so that a missing one fails the start, and the
// hosts join the allowlist.
Status add_secret(const Given& given, Env env, Options& options) {
  auto spec = net::egress::parse_secret_spec(given.text);
  if (!spec) return invalid_input(given.source + ": " + spec.error().message);
  for (const auto& known : options.secrets) {
    if (known.spec.name == spec->name) {
      return invalid_input(given.source + ": " + spec->name +
                           " is brokered twice; give each secret once, with all its hosts");
    }
  }
  auto secret = brokered_secret(given.source, *spec, env);
  if (!secret) return secret.error();
  for (const auto& host : spec->hosts) {
    if (std::find(options.allowed_hosts.begin(), options.allowed_hosts.end(), host) ==
        options.allowed_hosts.end()) {
      options.allowed_hosts.push_back(host);
    }
  }
  options.secrets.push_back(std::move(*secret));
  return {};
}

Result<bool> on_or_off(const Given& given) {
  auto value =
      one_of(given, {"on", "off", "1", "0", "true", "false", "yes", "no"}, "on or off", "on");
  if (!value) return value.error();
  return *value == "on" || *value == "1" || *value == "true" || *value == "yes";
}

Status add_share(const Given& given, Env, Options& options) {
  auto spec = mcp::parse_share_spec(given.text);
  if (!spec) return invalid_input(given.source + ": " + spec.error().message);
  options.shares.push_back(std::move(*spec));
  return {};
}

// A DNS label (RFC 1123), as Kubernetes requires; it also goes into API paths.
Status set_namespace(const Given& given, Env, Options& options) {
  const std::string& name = given.text;
  bool label =
      !name.empty() && name.size() <= 63 &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos &&
      name.front() != '-' && name.back() != '-';
  if (!label) return given.invalid("a namespace name", "sandboxes (a-z, 0-9 and -)");
  options.kube_namespace = name;
  return {};
}

Status set_kube_seccomp_profile(const Given& given, Env, Options& options) {
  if (!kube::valid_localhost_profile(given.text)) {
    return given.invalid(kube::kLocalhostProfileRule, kube::kLocalhostProfileExample);
  }
  options.kube_seccomp_profile = given.text;
  return {};
}

std::vector<McpSetting> make_table() {
  // Images travel base64 in one message of at most 8 MiB, beside the output.
  constexpr std::uint64_t kMaxArtifactBytes = 5u << 20;
  return {
      {"--backend",
       {"PADDOCK_BACKEND", "BACKEND"},
       "NAME",
       "Where sandboxes run: native (default), docker, podman or kubernetes (which read "
       "DOCKER_HOST, CONTAINER_HOST and KUBECONFIG)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.backend, one_of(g, {"native", "docker", "podman", "kubernetes"},
                                         "a backend", "native, docker, podman or kubernetes"));
       }},
      {"--namespace",
       {"PADDOCK_KUBE_NAMESPACE"},
       "NAME",
       "Kubernetes namespace for the pods (default: the kubeconfig context's)",
       Arity::kOne,
       set_namespace},
      {"--pod-start-timeout",
       {"PADDOCK_POD_START_TIMEOUT"},
       "DURATION",
       "How long a Kubernetes pod may take to pull its image and run, e.g. 10m (default 2m)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.pod_start_seconds, duration(g, "10m"));
       }},
      {"--kube-seccomp-profile",
       {"PADDOCK_KUBE_SECCOMP_PROFILE"},
       "PATH",
       "A Localhost seccomp profile for Kubernetes pods, relative to the kubelet's seccomp "
       "directory on every node, e.g. profiles/paddock.json (default: the runtime's)",
       Arity::kOne,
       set_kube_seccomp_profile},
      {"--policy-dir",
       {"PADDOCK_POLICY_DIR"},
       "DIR",
       "Extra language policies",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.policy_dir, Result<std::string>(g.text));
       }},
      {"--default-language",
       {"PADDOCK_DEFAULT_LANGUAGE"},
       "LANG",
       "The language of calls that name none (default python)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.default_language, Result<std::string>(g.text));
       }},
      {"--timeout",
       {"PADDOCK_TIMEOUT"},
       "DURATION",
       "Default wall-clock limit of a run, e.g. 30s (default: the language policy's)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.limits.wall_seconds, duration(g, "30s"));
       }},
      {"--max-timeout",
       {"PADDOCK_MAX_TIMEOUT"},
       "DURATION",
       "Longest timeout a call may ask for (default 5m)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.max_timeout_seconds, duration(g, "5m"));
       }},
      {"--memory",
       {"PADDOCK_MEMORY"},
       "SIZE",
       "Memory of a sandbox, e.g. 512m (default: the policy's); in rlimit mode per process",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.limits.memory_bytes, byte_size(g, "512m"));
       }},
      {"--cpus",
       {"PADDOCK_CPUS"},
       "N",
       "CPU share of a sandbox, e.g. 0.5 (default: no limit; cgroup v2 only)",
       Arity::kOne,
       set_cpus},
      {"--pids",
       {"PADDOCK_PIDS"},
       "N",
       "Processes and threads of a sandbox (default: the policy's)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.limits.pids, whole_number(g, 2, 1'000'000, "256"));
       }},
      {"--output-limit",
       {"PADDOCK_OUTPUT_LIMIT"},
       "SIZE",
       "Output kept per stream, e.g. 1m (default: the policy's)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.limits.output_bytes, byte_size(g, "1m"));
       }},
      {"--result-limit",
       {"PADDOCK_RESULT_LIMIT"},
       "SIZE",
       "Bytes of each stream a result gives the model, its start and its end, e.g. 64k "
       "(default); a session keeps the whole streams in files",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.result_stream_bytes, byte_size(g, "64k", 1024, 1u << 20));
       }},
      {"--artifact-limit",
       {"PADDOCK_ARTIFACT_LIMIT"},
       "N",
       "Files (figures first, in the order they were made) a call returns at most (default 20); "
       "the rest are named",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.max_artifacts, whole_number(g, 0, 1000, "20"));
       }},
      {"--artifact-bytes",
       {"PADDOCK_ARTIFACT_BYTES"},
       "SIZE",
       "Bytes of those files together, at most 5m (default 4m)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.max_artifact_bytes, byte_size(g, "4m", 1, kMaxArtifactBytes));
       }},
      {"--network",
       {"PADDOCK_NETWORK"},
       "MODE",
       "Network of programs: none, user (outbound to the public network only) or host (default: "
       "the policy's, none)",
       Arity::kOne,
       set_network},
      {"--allow-private",
       {"PADDOCK_ALLOW_PRIVATE"},
       "CIDRS",
       "Private, link-local or host addresses or ranges user-mode networking may reach anyway, "
       "e.g. 10.1.2.0/24 (comma-separated; loosens isolation)",
       Arity::kOne,
       set_private_ranges},
      {"--host-loopback-port",
       {"PADDOCK_HOST_LOOPBACK_PORTS"},
       "PORTS",
       "TCP ports of the host's loopback that user-mode networking reaches at the sandbox's "
       "127.0.0.1, e.g. a package mirror (comma-separated; loosens isolation)",
       Arity::kOne,
       set_loopback_ports},
      {"--install-network",
       {"PADDOCK_INSTALL_NETWORK"},
       "MODE",
       "Network of library installers: none, allowlist (their package index alone, through "
       "a proxy), user (the public network) or host (default: the policy's, allowlist)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.install_network,
                       one_of(g, {"none", "allowlist", "user", "host"}, "a network mode",
                              "none, allowlist, user or host"));
       }},
      {"--max-sessions",
       {"PADDOCK_MAX_SESSIONS"},
       "N",
       "Open sessions at most (default 16)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.max_sessions, whole_number(g, 0, 4096, "16"));
       }},
      {"--warm",
       {"PADDOCK_WARM"},
       "N",
       "Sandboxes set up ahead for fresh calls, per language in use (default 1, 0: none)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.warm_per_language, whole_number(g, 0, 64, "2"));
       }},
      {"--preload",
       {"PADDOCK_PRELOAD"},
       "LANG=MODULES",
       "Modules a warm interpreter imports before its call, e.g. python=numpy,pandas (several "
       "languages: ;-separated; python=: none; off: warm sandboxes start no interpreter; "
       "default: the policy's, for python numpy, pandas, matplotlib.pyplot, "
       "sklearn.linear_model)",
       Arity::kOne,
       set_preload},
      {"--session-idle",
       {"PADDOCK_SESSION_IDLE"},
       "DURATION",
       "Idle time before a session is closed, e.g. 30m (default)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.session_idle_seconds, duration(g, "30m"));
       }},
      {"--state-dir",
       {"PADDOCK_STATE_DIR"},
       "DIR",
       "Where sessions are kept across restarts (default $XDG_STATE_HOME/paddock or "
       "~/.local/state/paddock; none: sessions end with the server)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) -> Status {
         o.state_dir_set = true;
         if (g.text == "none") return {};
         if (g.text.empty() || g.text[0] != '/') {
           return g.invalid("an absolute path or none", "/home/me/.local/state/paddock");
         }
         o.state_dir = g.text;
         return {};
       }},
      {"--session-disk",
       {"PADDOCK_SESSION_DISK"},
       "SIZE",
       "A session's files at most, e.g. 1G (default: the policy's work limit, 256M): writes "
       "past it fail with ENOSPC",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.session_disk, byte_size(g, "1G", 1u << 20, 1ull << 40));
       }},
      {"--session-files",
       {"PADDOCK_SESSION_FILES"},
       "N",
       "A session's files and folders at most (default 50000)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.session_files, whole_number(g, 16, 100'000'000, "50000"));
       }},
      {"--state-disk",
       {"PADDOCK_STATE_DISK"},
       "SIZE",
       "The state directory's size at most, every kept session and snapshot together (default "
       "10G)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.state_disk, byte_size(g, "10G", 1u << 20, 1ull << 50));
       }},
      {"--session-retention",
       {"PADDOCK_SESSION_RETENTION"},
       "DURATION",
       "Kept sessions unused this long are removed from disk, e.g. 72h (default 168h: 7 days)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.session_retention_seconds, duration(g, "168h"));
       }},
      {"--idle-freeze",
       {"PADDOCK_IDLE_FREEZE"},
       "SECONDS",
       "Idle time before a session's processes are frozen until its next use, e.g. 300 "
       "(default) or 5m; 0: never",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.idle_freeze_seconds, duration_or_off(g, "300, 5m, or 0 for never"));
       }},
      {"--allow-preview",
       {"PADDOCK_ALLOW_PREVIEW"},
       "(no value)",
       "Let the model open a session's port to you on 127.0.0.1 (expose_port; docs/previews.md); "
       "the variable takes on or off",
       Arity::kSwitch,
       [](const Given& g, Env, Options& o) { return assign(o.allow_preview, on_or_off(g)); }},
      {"--preview-ports",
       {"PADDOCK_PREVIEW_PORTS"},
       "FIRST-LAST",
       "Host ports previews listen on, e.g. 8000-8099 (default: any the kernel picks)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) -> Status {
         auto range = net::preview::parse_preview_ports(g.text);
         if (!range) return g.invalid("a port or a range of ports", "8000-8099");
         o.preview_ports = {range->first, range->last};
         return {};
       }},
      {"--max-previews",
       {"PADDOCK_MAX_PREVIEWS"},
       "N",
       "Previews open at most, all sessions together (default 64; a session has 16 at most)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.max_previews, whole_number(g, 1, 1024, "64"));
       }},
      {"--workers",
       {"PADDOCK_WORKERS"},
       "N",
       "Tool calls served at once (default 8)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.workers, whole_number(g, 1, 256, "8"));
       }},
      {"--log-level",
       {"PADDOCK_LOG_LEVEL"},
       "LEVEL",
       "debug, info (default), notice, warning or error; the log goes to stderr",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.log_level, one_of(g, {"debug", "info", "notice", "warning", "error"},
                                           "a log level", "debug, info, notice, warning or error"));
       }},
      {"--audit-log",
       {"PADDOCK_AUDIT_LOG"},
       "FILE",
       "Append one JSON line per run (time, session, language, code hash, limits, outcome, "
       "duration; never code or secrets)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) -> Status {
         if (!g.text.starts_with("/")) return g.invalid("an absolute path", "/var/log/x");
         o.audit_log = g.text;
         return {};
       }},
      {"--pass-through-env",
       {"PADDOCK_PASS_THROUGH_ENV"},
       "NAMES",
       "Variables of the server's environment given to every sandbox, e.g. API_KEY,TOKEN; "
       "nothing else of it is; their values are masked in results",
       Arity::kOne,
       set_pass_through},
      {"--share-max-bytes",
       {"PADDOCK_SHARE_MAX_BYTES"},
       "SIZE",
       "Bytes one upload_file or download_file copies at most, e.g. 1g (default)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.transfer_caps.max_bytes, byte_size(g, "1g"));
       }},
      {"--share-max-files",
       {"PADDOCK_SHARE_MAX_FILES"},
       "N",
       "Files and folders one folder upload copies at most (default 10000)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.transfer_caps.max_files, whole_number(g, 1, 1'000'000, "10000"));
       }},
      {"--pull",
       {"PADDOCK_PULL"},
       "WHEN",
       "missing (default): pull an image on first use; never: refuse a missing one",
       Arity::kOne,
       [](const Given& g, Env, Options& o) -> Status {
         auto when =
             one_of(g, {"missing", "never"}, "a pull policy", "missing (the default) or never");
         if (!when) return when.error();
         o.pull_missing_images = *when == "missing";
         return {};
       }},
      // Images, lowest first: CONTAINER_IMAGE, then PADDOCK_IMAGES, then each --image.
      {"", {"CONTAINER_IMAGE"}, "", "", Arity::kOne, set_container_image},
      {"", {"CONTAINER_LANGUAGE"}, "", "", Arity::kOne, check_container_language},
      {"--image",
       {"PADDOCK_IMAGES"},
       "LANG=REF",
       "A language's image, e.g. python=python:3.12-slim",
       Arity::kRepeated,
       [](const Given& g, Env, Options& o) { return add_image(g, g.text, o); },
       "PADDOCK_IMAGES=LANG=REF,..., or CONTAINER_IMAGE with CONTAINER_LANGUAGE"},
      {"--allow-host",
       {"PADDOCK_ALLOW_HOSTS"},
       "PATTERN",
       "Programs reach only these hosts, through a proxy outside the sandbox: example.org, "
       "*.example.org, example.org:8443 or 10.1.2.0/24; installers reach them besides their "
       "package index",
       Arity::kRepeated,
       add_allowed_host,
       "PADDOCK_ALLOW_HOSTS=A,B"},
      {"--secret",
       {"PADDOCK_SECRETS"},
       "NAME=ENVVAR@HOSTS",
       "A brokered secret (docs/secrets.md): sandboxes see NAME set to a placeholder, and their "
       "proxy puts ENVVAR's value in its place in HTTPS requests to HOSTS alone, e.g. "
       "GITHUB_TOKEN=GH_TOKEN@api.github.com; the hosts join --allow-host",
       Arity::kRepeatedLists,
       add_secret,
       "PADDOCK_SECRETS=NAME=ENVVAR@HOST,...;..."},
      {"--secret-in-body",
       {"PADDOCK_SECRET_IN_BODY"},
       "(no value)",
       "Replace brokered secrets' placeholders in request bodies too (each held whole, 1 MiB at "
       "most), not only in headers; the variable takes on or off",
       Arity::kSwitch,
       [](const Given& g, Env, Options& o) { return assign(o.secrets_in_body, on_or_off(g)); }},
      {"--egress-ca-file",
       {"PADDOCK_EGRESS_CA_FILE"},
       "FILE",
       "PEM authorities the proxy checks brokered secrets' hosts against, instead of the "
       "system's trust store",
       Arity::kOne,
       [](const Given& g, Env, Options& o) -> Status {
         if (!g.text.starts_with("/")) return g.invalid("an absolute path", "/etc/my-ca.pem");
         o.egress_ca_file = g.text;
         return {};
       }},
      {"--share",
       {"PADDOCK_SHARE"},
       "DIR[=NAME][:rw]",
       "A host folder the tools may use, read-only unless :rw, named NAME (default: the folder's "
       "name); nothing else of the host is reachable",
       Arity::kRepeated,
       add_share,
       "PADDOCK_SHARE=DIR[=NAME][:rw],..."},
  };
}

// What no single row can check: settings that must agree.
Status check_together(const Options& options) {
  if (options.limits.wall_seconds && *options.limits.wall_seconds > options.max_timeout_seconds) {
    return invalid_input("the default timeout (" + seconds_text(*options.limits.wall_seconds) +
                         ") is over the longest allowed (--max-timeout, " +
                         seconds_text(options.max_timeout_seconds) +
                         "); lower the one or raise the other");
  }
  if (options.session_idle_seconds > options.max_session_idle_seconds) {
    return invalid_input("--session-idle is over 24 h, the longest a session may stay idle");
  }
  if (!options.secrets.empty() && options.backend != "native") {
    return invalid_input(
        "--secret needs the native backend, whose egress proxy brokers it; "
        "leave --backend at native or the secrets out");
  }
  if (!options.secrets.empty() && options.network && *options.network != NetworkMode::kNone) {
    return invalid_input(std::string("--secret goes through the egress proxy, the programs' only "
                                     "network: it cannot be combined with --network ") +
                         to_string(*options.network));
  }
  if (!options.allowed_hosts.empty() && options.network && *options.network != NetworkMode::kNone) {
    return invalid_input(std::string("--allow-host is the programs' only network: it cannot be "
                                     "combined with --network ") +
                         to_string(*options.network));
  }
  return {};
}

}  // namespace

const std::vector<McpSetting>& mcp_settings() {
  static const std::vector<McpSetting> kTable = make_table();
  return kTable;
}

Result<mcp::ServerOptions> resolve_server_options(const FlagValues& flags, const Environment& env) {
  Options options;
  if (auto set = resolve_settings(mcp_settings(), flags, env, options); !set) return set.error();
  if (auto checked = check_together(options); !checked) return checked.error();
  options.user_policy_dir = user_policy_directory(env);
  options.policy_variables = env;
  options.home = env("HOME");
  if (!options.state_dir_set) {
    std::string base = env("XDG_STATE_HOME").value_or("");
    if (base.empty() || base[0] != '/') {
      base = options.home && !options.home->empty() && (*options.home)[0] == '/'
                 ? *options.home + "/.local/state"
                 : "";
    }
    if (!base.empty()) options.state_dir = base + "/paddock";
  }
  return options;
}

}  // namespace paddock::cli
