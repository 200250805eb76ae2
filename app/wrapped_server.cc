#include "app/wrapped_server.h"

#include "app/shares.h"
#include "language/spec_builder.h"
#include "net/egress/proxy.h"
#include "runtime/sandbox_validation.h"

namespace paddock::app {
namespace {

// A result keeps this much of each stream: the stream itself passes through whole.
constexpr std::uint64_t kKeptOutputBytes = 64u << 10;

// The installer step: the launcher fetches the package into the home's cache, with nothing of
// the server's environment (no passed-through variable, no secret's placeholder) and the
// registry as its one destination. Its output goes to stderr, where the client logs it: stdout
// is the server's MCP stream.
std::vector<std::string> install_step(const PackageLaunch& launch) {
  std::vector<std::string> env = net::egress::proxy_env(false);
  env.push_back(std::string("HOME=") + kWrappedHome);
  env.insert(env.end(), launch.install_env.begin(), launch.install_env.end());
  std::vector<std::string> argv = {"/usr/bin/env", "-i"};
  for (auto& entry : runtime::merge_env(runtime::default_sandbox_env(), env))
    argv.push_back(std::move(entry));
  std::vector<std::string> shell = {"/bin/sh", "-c", "exec \"$@\" >&2", "paddock-install"};
  argv.insert(argv.end(), shell.begin(), shell.end());
  argv.insert(argv.end(), launch.install_command.begin(), launch.install_command.end());
  return argv;
}

}  // namespace

core::Result<std::pair<runtime::SandboxShape, runtime::RunPlan>> wrapped_server_spec(
    const WrappedServerOptions& options, const Shares& shares) {
  const ServerOptions& server = *options.server;
  runtime::Limits limits;
  server.limits.apply_to(limits);
  runtime::SandboxShape shape;
  shape.limits = limits;
  shape.require_cgroups = server.require_cgroups;
  shape.network = server.network.value_or(runtime::NetworkMode::kNone);
  shape.allowed_hosts = server.allowed_hosts;
  shape.allowed_private_ranges = server.allowed_private_ranges;
  shape.host_loopback_ports = server.host_loopback_ports;
  shape.seccomp_profile_path = server.seccomp_profile;
  shape.trust_bundle = options.trust_bundle;
  for (const auto& share : shares.all()) {
    shape.binds.push_back({share->host_dir, "/work/" + share->name, share->writable});
  }
  shape.binds.push_back({options.home, kWrappedHome, true});

  runtime::RunPlan plan;
  // A server runs until its client is done with it: no timer unless one was asked for.
  plan.wall_seconds = server.limits.wall_seconds.value_or(runtime::kLongestWallSeconds);
  plan.output_bytes = kKeptOutputBytes;
  plan.env = {std::string("HOME=") + kWrappedHome};
  for (const auto* list : {&options.env, &server.pass_through_env, &options.trust_env}) {
    plan.env.insert(plan.env.end(), list->begin(), list->end());
  }
  if (options.launch) {
    plan.env.insert(plan.env.end(), options.launch->env.begin(), options.launch->env.end());
    if (!options.package_installed) {
      plan.steps.push_back(install_step(*options.launch));
      plan.networked_steps = 1;
      plan.installer_allowed_hosts = {options.launch->registry_host};
    }
    plan.steps.push_back(options.launch->command);
  } else {
    plan.steps.push_back(options.command);
  }
  auto built =
      language::build_command_spec(std::move(shape), std::move(plan), language::ImageSource{});
  if (!built) return built.error();
  return std::pair{std::move(built->shape), std::move(built->plan)};
}

}  // namespace paddock::app
