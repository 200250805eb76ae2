// The rows both commands take. A data table: its one function is longer than 80 lines.

#include <algorithm>

#include "config/rows.h"
#include "config/values.h"
#include "core/ip_prefix.h"
#include "core/units.h"
#include "language/policy.h"
#include "net/egress/host_pattern.h"
#include "runtime/kube/kube_settings.h"
#include "runtime/kube/localhost_profile.h"

namespace paddock::config {
namespace {

// What holds where a policy sets nothing: paddock's defaults, written once (sandbox_parts.h).
const runtime::Limits kLimits{};
// The kubernetes backend's, written once (kube_settings.h).
const kube::KubeSettings kKube{};

// A limit's default: the language policy's, and paddock's own where it sets none (and for a
// command run without --lang).
std::string policy_or(const std::string& value) {
  return "the policy's, else " + value;
}

core::Status set_cpus(const Given& given, Env, Options& options) {
  auto cpus = core::parse_decimal(given.text);
  if (!cpus || *cpus <= 0 || *cpus > 1024) return given.invalid("a CPU count", "0.5 or 2");
  options.server.limits.cpus = *cpus;
  return {};
}

// A size where 0 is a limit too (a run that may write no file, keep no output).
core::Result<std::uint64_t> size_or_zero(const Given& given, const char* example) {
  auto value = core::parse_size(given.text);
  if (!value) return given.invalid("a size", example);
  return *value;
}

core::Status set_network(const Given& given, Env, Options& options) {
  if (given.text == "none") {
    options.server.network = runtime::NetworkMode::kNone;
  } else if (given.text == "user") {
    options.server.network = runtime::NetworkMode::kUser;
  } else if (given.text == "host") {
    options.server.network = runtime::NetworkMode::kHost;
  } else {
    return given.invalid("a network mode", "none, user or host");
  }
  return {};
}

// Each value may be a comma list, as the variable is.
core::Status add_private_ranges(const Given& given, Env, Options& options) {
  for (const auto& range : split_list(given.text)) {
    if (!core::parse_ip_prefix(range)) {
      return given.invalid("an IP address or CIDR range", "10.1.2.0/24");
    }
    options.server.allowed_private_ranges.push_back(range);
  }
  return {};
}

core::Status add_loopback_ports(const Given& given, Env, Options& options) {
  for (const auto& text : split_list(given.text)) {
    auto port = core::parse_count(text);
    if (!port || *port == 0 || *port > 65535) return given.invalid("a port (1 to 65535)", "3141");
    options.server.host_loopback_ports.push_back(static_cast<std::uint16_t>(*port));
  }
  return {};
}

core::Status add_allowed_host(const Given& given, Env, Options& options) {
  if (auto pattern = net::egress::parse_host_pattern(given.text); !pattern) {
    return core::invalid_input(given.source + ": " + pattern.error().message);
  }
  options.server.allowed_hosts.push_back(given.text);
  return {};
}

// NAME=ENVVAR@HOST,...: the hosts join the allowlist; the value is read by the command that
// uses it (config/resolve.h).
core::Status add_secret(const Given& given, Env, Options& options) {
  auto spec = net::egress::parse_secret_spec(given.text);
  if (!spec) return core::invalid_input(given.source + ": " + spec.error().message);
  for (const auto& known : options.secrets) {
    if (known.spec.name == spec->name) {
      return core::invalid_input(given.source + ": " + spec->name +
                                 " is brokered twice; give each secret once, with all its hosts");
    }
  }
  auto& hosts = options.server.allowed_hosts;
  for (const auto& host : spec->hosts) {
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  options.secrets.push_back({std::move(*spec), given.source});
  return {};
}

// A DNS label (RFC 1123), as Kubernetes requires; it also goes into API paths.
core::Status set_namespace(const Given& given, Env, Options& all) {
  const std::string& name = given.text;
  bool label =
      !name.empty() && name.size() <= 63 &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos &&
      name.front() != '-' && name.back() != '-';
  if (!label) return given.invalid("a namespace name", "sandboxes (a-z, 0-9 and -)");
  all.server.kube_namespace = name;
  return {};
}

core::Status set_kube_seccomp_profile(const Given& given, Env, Options& all) {
  if (!kube::valid_localhost_profile(given.text)) {
    return given.invalid(kube::kLocalhostProfileRule, kube::kLocalhostProfileExample);
  }
  all.server.kube_seccomp_profile = given.text;
  return {};
}

// A file named by its absolute path: the same file whatever folder the command starts in.
core::Status set_absolute_path(std::optional<std::string>& field, const Given& given,
                               const char* example) {
  if (!given.text.starts_with("/")) return given.invalid("an absolute path", example);
  field = given.text;
  return {};
}

// A row both commands take, whose variable only the server reads.
Setting shared(std::string flag, std::string variable, std::string type, std::string default_value,
               std::string help, decltype(Setting::set) set, Arity arity = Arity::kOne,
               std::string variables_help = {}) {
  return {std::move(flag), {std::move(variable)},    kBoth,           kMcp,
          std::move(type), std::move(default_value), std::move(help), arity,
          std::move(set),  std::move(variables_help)};
}

}  // namespace

std::vector<Setting> sandbox_rows() {
  return {
      {"--backend",
       {"PADDOCK_BACKEND", "BACKEND"},
       kBoth,
       kBoth,
       "NAME",
       app::ServerOptions{}.backend,
       "Where sandboxes run: native, docker, podman or kubernetes (which read DOCKER_HOST, "
       "CONTAINER_HOST and KUBECONFIG)",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.server.backend,
                       one_of(g, {"native", "docker", "podman", "kubernetes"}, "a backend",
                              "native, docker, podman or kubernetes"));
       }},
      // The kubernetes backend's: both commands read the variables, as they find the cluster
      // from the environment (KUBECONFIG).
      {"--namespace",
       {"PADDOCK_KUBE_NAMESPACE"},
       kBoth,
       kBoth,
       "NAME",
       std::string("the kubeconfig context's, else ") + kube::kDefaultNamespace,
       "Kubernetes namespace for the pods",
       Arity::kOne,
       set_namespace},
      {"--pod-start-timeout",
       {"PADDOCK_POD_START_TIMEOUT"},
       kBoth,
       kBoth,
       "DURATION",
       duration_default(kKube.pods.start_seconds),
       "How long a Kubernetes pod may take to pull its image and run, e.g. 10m",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.server.pod_start_seconds, duration(g, "10m"));
       }},
      {"--kube-seccomp-profile",
       {"PADDOCK_KUBE_SECCOMP_PROFILE"},
       kBoth,
       kBoth,
       "PATH",
       std::string(kube::kRuntimeDefaultProfile) + " (the container runtime's)",
       "A Localhost seccomp profile for Kubernetes pods, relative to the kubelet's seccomp "
       "directory on every node, e.g. profiles/paddock.json",
       Arity::kOne,
       set_kube_seccomp_profile},
      {"--policy-dir",
       {"PADDOCK_POLICY_DIR"},
       kBoth,
       kBoth,
       "DIR",
       "",
       "Extra language policies, over the built-in ones and ~/.config/paddock/policies",
       Arity::kOne,
       [](const Given& g, Env, Options& o) {
         return assign(o.server.policy_dir, core::Result<std::string>(g.text));
       }},
      with_wrap(
          shared("--timeout", "PADDOCK_TIMEOUT", "DURATION",
                 policy_or(duration_default(kLimits.wall_seconds)),
                 "Wall-clock limit of a run, e.g. 30, 1.5s or 2m; the whole sandbox is killed",
                 [](const Given& g, Env, Options& o) {
                   return assign(o.server.limits.wall_seconds, duration(g, "30s"));
                 }),
          "the profile's, else none: a server runs as long as its client"),
      with_wrap(shared(
          "--memory", "PADDOCK_MEMORY", "SIZE", policy_or(size_default(kLimits.memory_bytes)),
          "Memory of a sandbox, e.g. 512m; in rlimit mode only per process, tmpfs and shared "
          "memory uncounted",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.limits.memory_bytes, byte_size(g, "512m"));
          })),
      with_wrap(shared("--pids", "PADDOCK_PIDS", "N", policy_or(std::to_string(kLimits.pids)),
                       "Processes and threads of a sandbox, its init included",
                       [](const Given& g, Env, Options& o) {
                         return assign(o.server.limits.pids, whole_number(g, 2, 1'000'000, "256"));
                       })),
      with_wrap(shared(
          "--cpus", "PADDOCK_CPUS", "N", "no limit",
          "CPU share of a whole sandbox, e.g. 0.5 (cgroup v2; rlimit mode cannot enforce it)",
          set_cpus)),
      with_wrap(shared("--cpu-time", "PADDOCK_CPU_TIME", "SECONDS", policy_or("no limit"),
                       "CPU time of each process: SIGXCPU, then SIGKILL a second later",
                       [](const Given& g, Env, Options& o) {
                         return assign(o.server.limits.cpu_seconds, duration_or_off(g, "10"));
                       })),
      with_wrap(shared(
          "--require-cgroups", "PADDOCK_REQUIRE_CGROUPS", "(no value)", "off",
          "Refuse to start a sandbox unless cgroup v2 enforces its limits (no rlimit fallback)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.require_cgroups, on_or_off(g));
          },
          Arity::kSwitch)),
      shared("--output-limit", "PADDOCK_OUTPUT_LIMIT", "SIZE",
             policy_or(size_default(kLimits.output_bytes)),
             "Bytes of each stream a result keeps, its start and its end, e.g. 1m (without --json, "
             "`paddock run` passes the output through whole)",
             [](const Given& g, Env, Options& o) {
               return assign(o.server.limits.output_bytes, size_or_zero(g, "1m"));
             }),
      with_wrap(shared("--file-size", "PADDOCK_FILE_SIZE", "SIZE",
                       policy_or(size_default(kLimits.file_size_bytes)),
                       "Largest file a process may write",
                       [](const Given& g, Env, Options& o) {
                         return assign(o.server.limits.file_size_bytes, size_or_zero(g, "256m"));
                       })),
      with_wrap(shared("--tmp-size", "PADDOCK_TMP_SIZE", "SIZE",
                       policy_or(size_default(kLimits.tmp_bytes)),
                       "Size of /tmp and /dev/shm, each",
                       [](const Given& g, Env, Options& o) {
                         return assign(o.server.limits.tmp_bytes, size_or_zero(g, "64m"));
                       })),
      with_wrap(shared("--work-size", "PADDOCK_WORK_SIZE", "SIZE",
                       policy_or(size_default(kLimits.work_bytes)), "Size of the work directory",
                       [](const Given& g, Env, Options& o) {
                         return assign(o.server.limits.work_bytes, size_or_zero(g, "256m"));
                       })),
      with_wrap(shared("--network", "PADDOCK_NETWORK", "MODE", policy_or("none"),
                       "Network of programs: none, user (rootless, via pasta: outbound to the "
                       "public network "
                       "only; nothing inbound, nothing of the host, no private, link-local or "
                       "metadata address) "
                       "or host (no isolation of the network)",
                       set_network),
                "none"),
      shared("--install-network", "PADDOCK_INSTALL_NETWORK", "MODE",
             policy_or(language::LanguagePolicy{}.install_network),
             "Network of library installers: none, allowlist (their package index alone, through "
             "a proxy), user (the public network) or host",
             [](const Given& g, Env, Options& o) {
               return assign(o.server.install_network,
                             one_of(g, {"none", "allowlist", "user", "host"}, "a network mode",
                                    "none, allowlist, user or host"));
             }),
      with_wrap(shared(
          "--allow-private", "PADDOCK_ALLOW_PRIVATE", "CIDRS", "",
          "Private, link-local or host addresses or CIDR ranges user-mode networking may reach "
          "anyway, e.g. 10.1.2.0/24 (comma-separated; loosens isolation)",
          add_private_ranges, Arity::kRepeated)),
      with_wrap(shared(
          "--host-loopback-port", "PADDOCK_HOST_LOOPBACK_PORTS", "PORTS", "",
          "TCP ports of the host's loopback that user-mode networking reaches at the sandbox's "
          "127.0.0.1, e.g. a package mirror (comma-separated; loosens isolation)",
          add_loopback_ports, Arity::kRepeated)),
      with_wrap(shared(
          "--allow-host", "PADDOCK_ALLOW_HOSTS", "PATTERN", "",
          "Programs reach only these hosts, through a proxy outside the sandbox: example.org, "
          "*.example.org, example.org:8443 or 10.1.2.0/24 (with --network none); installers reach "
          "them besides their package index",
          add_allowed_host, Arity::kRepeated, "PADDOCK_ALLOW_HOSTS=A,B")),
      with_wrap(shared(
          "--secret", "PADDOCK_SECRETS", "NAME=ENVVAR@HOSTS", "",
          "A brokered secret (docs/secrets.md): sandboxes see NAME set to a placeholder, and their "
          "proxy puts ENVVAR's value in its place in HTTPS requests to HOSTS alone, e.g. "
          "GITHUB_TOKEN=GH_TOKEN@api.github.com; the hosts join --allow-host",
          add_secret, Arity::kRepeatedLists, "PADDOCK_SECRETS=NAME=ENVVAR@HOST,...;...")),
      with_wrap(shared(
          "--secret-in-body", "PADDOCK_SECRET_IN_BODY", "(no value)", "off",
          "Replace brokered secrets' placeholders in request bodies too (each held whole, 1 MiB at "
          "most), not only in headers",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.secrets_in_body, on_or_off(g));
          },
          Arity::kSwitch)),
      with_wrap(
          shared("--seccomp-profile", "PADDOCK_SECCOMP_PROFILE", "FILE", policy_or("paddock's own"),
                 "A seccomp profile in Docker's JSON format, over the policy's (not with the "
                 "kubernetes backend: see --kube-seccomp-profile)",
                 [](const Given& g, Env, Options& o) {
                   return assign(o.server.seccomp_profile, core::Result<std::string>(g.text));
                 }),
          "paddock's own"),
      with_wrap(shared("--audit-log", "PADDOCK_AUDIT_LOG", "FILE", "",
                       "Append one JSON line per run (time, session, language, code hash, limits, "
                       "outcome, duration; never code or secrets)",
                       [](const Given& g, Env, Options& o) {
                         return set_absolute_path(o.server.audit_log, g,
                                                  "/var/log/paddock-audit.jsonl");
                       })),
      with_wrap(
          shared("--egress-ca-file", "PADDOCK_EGRESS_CA_FILE", "FILE", "",
                 "PEM authorities the proxy checks brokered secrets' hosts against, instead of the "
                 "system's trust store",
                 [](const Given& g, Env, Options& o) {
                   return set_absolute_path(o.server.egress_ca_file, g, "/etc/my-ca.pem");
                 })),
  };
}

}  // namespace paddock::config
