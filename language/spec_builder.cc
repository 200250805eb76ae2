#include "language/spec_builder.h"

#include "language/builtin_policies.h"
#include "language/language_run.h"
#include "runtime/image_root.h"

namespace paddock {
namespace {

// The operator's settings over the policy's spec: they win over the policy, which wins over
// paddock's defaults.
void apply_overrides(const SpecOverrides& overrides, SandboxSpec& spec) {
  overrides.limits.apply_to(spec.limits);
  spec.env.insert(spec.env.end(), overrides.env.begin(), overrides.env.end());
  if (overrides.network) spec.network = *overrides.network;
  spec.allowed_private_ranges = overrides.allowed_private_ranges;
  spec.host_loopback_ports = overrides.host_loopback_ports;
  spec.allowed_hosts.insert(spec.allowed_hosts.end(), overrides.allowed_hosts.begin(),
                            overrides.allowed_hosts.end());
  extend_installer_list(overrides, spec.installer_allowed_hosts);
  spec.cwd = overrides.cwd;
  spec.stdin_path = overrides.stdin_path;
  spec.binds = overrides.binds;
  if (overrides.seccomp_profile_path) spec.seccomp_profile_path = overrides.seccomp_profile_path;
  spec.require_cgroups = overrides.require_cgroups;
  spec.collect.directories.insert(spec.collect.directories.end(),
                                  overrides.collect_directories.begin(),
                                  overrides.collect_directories.end());
  if (overrides.max_collected_files) spec.collect.max_files = *overrides.max_collected_files;
  if (overrides.max_collected_bytes) spec.collect.max_bytes = *overrides.max_collected_bytes;
}

// The image the source names, else the policy's (`rootfs`), resolved once and put under the spec.
Status apply_image_source(const ImageSource& source, const std::optional<std::string>& policy_image,
                          SandboxSpec& spec, bool as_language) {
  std::optional<std::string> image = source.image ? source.image : policy_image;
  if (!image) return {};
  if (source.ensure) {
    if (auto ready = source.ensure(*image); !ready) return ready;
  }
  auto resolved = source.backend->resolve_image(*image, source.store_root);
  if (!resolved) return resolved.error();
  return apply_image(*resolved, spec, as_language);
}

}  // namespace

void extend_installer_list(const SpecOverrides& overrides, std::vector<std::string>& list) {
  if (list.empty()) return;  // the installer has user-mode networking, or none
  list.insert(list.end(), overrides.allowed_hosts.begin(), overrides.allowed_hosts.end());
  // A port of the host's loopback named for a package mirror there reaches the installer through
  // its proxy as it would through user-mode networking.
  for (auto port : overrides.host_loopback_ports) {
    list.push_back("127.0.0.1:" + std::to_string(port));
    list.push_back("[::1]:" + std::to_string(port));
  }
}

bool apply_timeout(const std::optional<double>& asked, const std::optional<double>& cap,
                   Limits& limits) {
  double wanted = asked.value_or(limits.wall_seconds);
  bool capped = cap && wanted > *cap;
  limits.wall_seconds = capped ? *cap : wanted;
  return capped;
}

Result<BuiltSpec> build_language_spec(const LanguagePolicy& policy, const CodeCall& call,
                                      const SpecOverrides& overrides, const ImageSource& image) {
  auto spec =
      language_spec(policy, call.code, call.program_args, call.libraries, overrides.installer_env);
  if (!spec) return spec.error();
  BuiltSpec built;
  built.spec = std::move(*spec);
  apply_overrides(overrides, built.spec);
  built.timeout_capped =
      apply_timeout(call.timeout_seconds, overrides.max_wall_seconds, built.spec.limits);
  built.spec.files_after_install = call.files;
  built.spec.stdin_fd = call.stdin_fd;
  if (auto applied = apply_image_source(image, image_of_rootfs(policy.rootfs), built.spec, true);
      !applied) {
    return applied.error().context("language " + policy.name);
  }
  return built;
}

Result<BuiltSpec> build_session_spec(const LanguagePolicy& policy, const SpecOverrides& overrides,
                                     const ImageSource& image) {
  auto built = build_language_spec(policy, CodeCall{}, overrides, image);
  if (!built) return built.error();
  SandboxSpec& spec = built->spec;
  if (spec.network == NetworkMode::kHost || policy.install_network == "host") {
    return invalid_input("language '" + policy.name +
                         "' needs the host's network, which sessions do not offer");
  }
  spec.argv.clear();
  spec.prelude.clear();
  spec.files.erase(spec.files.begin());  // the code comes with each call
  return built;
}

Result<BuiltSpec> build_toolchain_spec(const LanguagePolicy& policy,
                                       const std::vector<std::string>& argv, double wall_seconds,
                                       const SpecOverrides& overrides, const ImageSource& image) {
  auto built = build_language_spec(policy, CodeCall{}, overrides, image);
  if (!built) return built.error();
  built->spec.prelude.clear();
  built->spec.argv = argv;
  built->spec.limits.wall_seconds = wall_seconds;
  return built;
}

Result<BuiltSpec> build_command_spec(SandboxSpec flags, const ImageSource& image) {
  BuiltSpec built;
  built.spec = std::move(flags);
  // A command may be any language's program: it sees what every built-in language needs.
  if (built.spec.host_etc.empty()) built.spec.host_etc = builtin_host_etc();
  if (auto applied = apply_image_source(image, std::nullopt, built.spec, false); !applied) {
    return applied.error();
  }
  return built;
}

}  // namespace paddock
