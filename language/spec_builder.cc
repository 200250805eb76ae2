#include "language/spec_builder.h"

#include <algorithm>

#include "language/builtin_policies.h"
#include "language/language_run.h"
#include "runtime/image_root.h"

namespace paddock::language {
namespace {

constexpr const char* kPlotsDirectory = ".paddock/plots";

// The operator's settings over the policy's run: they win over the policy, which wins over
// paddock's defaults.
void apply_overrides(const SpecOverrides& overrides, LanguageRun& run) {
  runtime::SandboxShape& shape = run.shape;
  runtime::RunPlan& plan = run.plan;
  overrides.limits.apply_to(run.limits);
  plan.env.insert(plan.env.end(), overrides.env.begin(), overrides.env.end());
  if (overrides.network) shape.network = *overrides.network;
  shape.allowed_private_ranges = overrides.allowed_private_ranges;
  shape.host_loopback_ports = overrides.host_loopback_ports;
  shape.previews = overrides.previews;
  shape.allowed_hosts.insert(shape.allowed_hosts.end(), overrides.allowed_hosts.begin(),
                             overrides.allowed_hosts.end());
  extend_installer_list(overrides, plan.installer_allowed_hosts);
  shape.ask_network = overrides.ask_network && shape.network == runtime::NetworkMode::kNone;
  plan.cwd = overrides.cwd;
  plan.stdin_path = overrides.stdin_path;
  shape.binds = overrides.binds;
  shape.trust_bundle = overrides.trust_bundle;
  if (overrides.seccomp_profile_path) shape.seccomp_profile_path = overrides.seccomp_profile_path;
  shape.require_cgroups = overrides.require_cgroups;
  plan.collect.directories.insert(plan.collect.directories.end(),
                                  overrides.collect_directories.begin(),
                                  overrides.collect_directories.end());
  if (overrides.max_collected_files) plan.collect.max_files = *overrides.max_collected_files;
  if (overrides.max_collected_bytes) plan.collect.max_bytes = *overrides.max_collected_bytes;
}

// The image the source names, else the policy's (`rootfs`), resolved once and put under the
// shape.
core::Status apply_image_source(const ImageSource& source,
                                const std::optional<std::string>& policy_image,
                                runtime::SandboxShape& shape, runtime::RunPlan& plan,
                                bool as_language) {
  std::optional<std::string> image = source.image ? source.image : policy_image;
  if (!image) return {};
  if (source.ensure) {
    if (auto ready = source.ensure(*image); !ready) return ready;
  }
  auto resolved = source.backend->resolve_image(*image, source.store_root);
  if (!resolved) return resolved.error();
  return runtime::apply_image(*resolved, shape, plan, as_language);
}

// The one place a timeout is capped: `asked` (the call's), else what `limits` holds, never over
// the operator's max_wall_seconds. Sets limits.wall_seconds; true when the cap cut what was asked.
bool apply_timeout(const std::optional<double>& asked, const SpecOverrides& overrides,
                   runtime::Limits& limits) {
  double wanted = asked.value_or(limits.wall_seconds);
  const std::optional<double>& cap = overrides.max_wall_seconds;
  bool capped = cap && wanted > *cap;
  limits.wall_seconds = capped ? *cap : wanted;
  return capped;
}

// A language run with the operator's settings, the call's parts and the image laid over the
// policy's; its limits not yet put into the shape and the plan (finish).
core::Result<LanguageRun> language_run(const LanguagePolicy& policy, const CodeCall& call,
                                       const SpecOverrides& overrides, const ImageSource& image,
                                       bool& timeout_capped) {
  auto run =
      language_spec(policy, call.code, call.program_args, call.libraries, overrides.installer_env);
  if (!run) return run.error();
  apply_overrides(overrides, *run);
  timeout_capped = apply_timeout(call.timeout_seconds, overrides, run->limits);
  run->plan.files_after_install = call.files;
  run->plan.stdin_fd = call.stdin_fd;
  if (auto applied = apply_image_source(image, runtime::image_of_rootfs(policy.rootfs), run->shape,
                                        run->plan, true);
      !applied) {
    return applied.error().context("language " + policy.name);
  }
  return run;
}

// The run's limits where they belong: the sandbox's in the shape, the timer and output cap in
// the plan.
BuiltSpec finish(LanguageRun&& run, bool timeout_capped) {
  BuiltSpec built;
  built.shape = std::move(run.shape);
  built.shape.limits = run.limits;
  built.plan = std::move(run.plan);
  built.plan.wall_seconds = run.limits.wall_seconds;
  built.plan.output_bytes = run.limits.output_bytes;
  built.timeout_capped = timeout_capped;
  return built;
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

core::Result<BuiltSpec> build_language_spec(const LanguagePolicy& policy, const CodeCall& call,
                                            const SpecOverrides& overrides,
                                            const ImageSource& image) {
  bool capped = false;
  auto run = language_run(policy, call, overrides, image, capped);
  if (!run) return run.error();
  // A sandbox of its own runs no installer after its start, so it is made ready for none: a warm
  // one of this shape is made as a cold one without an install step is.
  run->shape.session_networking = false;
  return finish(std::move(*run), capped);
}

core::Result<BuiltSpec> build_session_spec(const LanguagePolicy& policy,
                                           const SpecOverrides& overrides,
                                           const ImageSource& image) {
  bool capped = false;
  auto run = language_run(policy, CodeCall{}, overrides, image, capped);
  if (!run) return run.error();
  if (run->shape.network == runtime::NetworkMode::kHost || policy.install_network == "host") {
    return core::invalid_input("language '" + policy.name +
                               "' needs the host's network, which sessions do not offer");
  }
  run->shape.session_networking = true;
  // Set without libraries too: a session's later installs go through the same proxy.
  run->shape.session_installer_proxy = !run->plan.installer_allowed_hosts.empty();
  // What every command starts from; each call brings its code and steps.
  runtime::RunPlan base;
  base.env = std::move(run->plan.env);
  base.cwd = std::move(run->plan.cwd);
  run->plan = std::move(base);
  return finish(std::move(*run), capped);
}

std::string session_plot_directory(int run) {
  return std::string(kPlotsDirectory) + "/" + std::to_string(run);
}

core::Result<BuiltCall> build_session_call(const LanguagePolicy& policy, const CodeCall& call,
                                           const SpecOverrides& overrides,
                                           const SessionCall& session) {
  auto run =
      language_spec(policy, call.code, call.program_args, call.libraries, overrides.installer_env);
  if (!run) return run.error();
  BuiltCall built;
  built.limits = run->limits;
  overrides.limits.apply_to(built.limits);
  built.timeout_capped = apply_timeout(call.timeout_seconds, overrides, built.limits);
  runtime::RunPlan& plan = built.plan;
  plan.steps = std::move(run->plan.steps);
  plan.networked_steps = run->plan.networked_steps;
  plan.installer_allowed_hosts = std::move(run->plan.installer_allowed_hosts);
  // What the operator adds to the package index's list, as for a fresh run.
  extend_installer_list(overrides, plan.installer_allowed_hosts);
  plan.files = std::move(run->plan.files);  // the code; the session has the support files
  plan.files_after_install = call.files;
  plan.stdin_fd = call.stdin_fd;
  plan.wall_seconds = built.limits.wall_seconds;
  plan.output_bytes = std::max(built.limits.output_bytes, session.min_output_bytes);
  if (overrides.max_collected_files) plan.collect.max_files = *overrides.max_collected_files;
  if (overrides.max_collected_bytes) plan.collect.max_bytes = *overrides.max_collected_bytes;
  // Each call's figures in a directory of their own, so a call returns only what it drew.
  if (policy.env.count("PADDOCK_PLOTS_DIR") != 0) {
    std::string directory = session_plot_directory(session.run);
    plan.env.push_back("PADDOCK_PLOTS_DIR=/work/" + directory);
    plan.collect.directories.push_back(directory);
  }
  return built;
}

BuiltCell build_live_cell(const LanguagePolicy& policy, const std::optional<double>& timeout,
                          const runtime::Limits& session_limits, const SpecOverrides& overrides) {
  BuiltCell built;
  built.limits = session_limits;
  built.limits.wall_seconds = policy.limits.wall_seconds.value_or(session_limits.wall_seconds);
  built.timeout_capped = apply_timeout(timeout, overrides, built.limits);
  return built;
}

runtime::Limits language_limits(const LanguagePolicy& policy, const SpecOverrides& overrides) {
  runtime::Limits limits;
  policy.limits.apply_to(limits);
  apply_timeout(std::nullopt, overrides, limits);
  return limits;
}

core::Result<BuiltCall> build_session_install(const LanguagePolicy& policy,
                                              const std::vector<std::string>& libraries,
                                              const SpecOverrides& overrides) {
  auto run = language_spec(policy, "", {}, libraries);
  if (!run) return run.error();
  // The steps are [install] [compile] run: with no library, there is nothing to install.
  if (libraries.empty()) return core::invalid_input("no libraries given");
  BuiltCall built;
  built.limits = run->limits;
  overrides.limits.apply_to(built.limits);
  // An install may take longer than a call: four times the policy's timeout, under the cap.
  apply_timeout(built.limits.wall_seconds * 4, overrides, built.limits);
  runtime::RunPlan& plan = built.plan;
  plan.steps = {run->plan.steps.front()};
  plan.networked_steps = run->plan.networked_steps > 0 ? 1 : 0;
  plan.installer_allowed_hosts = std::move(run->plan.installer_allowed_hosts);
  // What the operator adds to the package index's list, as for a fresh run.
  extend_installer_list(overrides, plan.installer_allowed_hosts);
  plan.wall_seconds = built.limits.wall_seconds;
  plan.output_bytes = built.limits.output_bytes;
  return built;
}

core::Result<BuiltSpec> build_toolchain_spec(const LanguagePolicy& policy,
                                             const std::vector<std::string>& argv,
                                             double wall_seconds, const SpecOverrides& overrides,
                                             const ImageSource& image) {
  bool capped = false;
  auto run = language_run(policy, CodeCall{}, overrides, image, capped);
  if (!run) return run.error();
  run->shape.session_networking = false;
  // The toolchain's command alone, in the sandbox a session of the language gets.
  runtime::RunPlan toolchain;
  toolchain.steps = {argv};
  toolchain.env = std::move(run->plan.env);
  toolchain.cwd = std::move(run->plan.cwd);
  run->plan = std::move(toolchain);
  run->limits.wall_seconds = wall_seconds;
  return finish(std::move(*run), capped);
}

core::Result<BuiltSpec> build_command_spec(runtime::SandboxShape shape, runtime::RunPlan plan,
                                           const ImageSource& image) {
  // A command may be any language's program: it sees what every built-in language needs.
  if (shape.host_etc.empty()) shape.host_etc = builtin_host_etc();
  if (auto applied = apply_image_source(image, std::nullopt, shape, plan, false); !applied) {
    return applied.error();
  }
  BuiltSpec built;
  built.shape = std::move(shape);
  built.plan = std::move(plan);
  return built;
}

}  // namespace paddock::language
