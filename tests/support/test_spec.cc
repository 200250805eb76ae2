#include "support/test_spec.h"

namespace paddock {

TestSpec spec_of(const runtime::SandboxShape& shape, const runtime::RunPlan& plan) {
  TestSpec spec;
  if (!plan.steps.empty()) {
    spec.prelude.assign(plan.steps.begin(), plan.steps.end() - 1);
    spec.argv = plan.steps.back();
  }
  spec.networked_prelude = plan.networked_steps;
  spec.installer_allowed_hosts = plan.installer_allowed_hosts;
  spec.files = plan.files;
  spec.files.insert(spec.files.end(), shape.support_files.begin(), shape.support_files.end());
  spec.files_after_install = plan.files_after_install;
  spec.collect = plan.collect;
  spec.env = plan.env;
  spec.cwd = plan.cwd;
  spec.stdin_path = plan.stdin_path;
  spec.stdin_fd = plan.stdin_fd;
  spec.limits = runtime::limits_of(shape.limits, plan);
  spec.workdir = shape.workdir;
  spec.network = shape.network;
  spec.allowed_private_ranges = shape.allowed_private_ranges;
  spec.host_loopback_ports = shape.host_loopback_ports;
  spec.allowed_hosts = shape.allowed_hosts;
  spec.binds = shape.binds;
  spec.host_etc = shape.host_etc;
  spec.image_layers = shape.image_layers;
  spec.image = shape.image;
  spec.image_flattened_dir = shape.image_flattened_dir;
  spec.image_root = shape.image_root;
  spec.hostname = shape.hostname;
  spec.user = shape.user;
  spec.seccomp_profile_path = shape.seccomp_profile_path;
  spec.seccomp_allow = shape.seccomp_allow;
  spec.seccomp_deny = shape.seccomp_deny;
  spec.require_cgroups = shape.require_cgroups;
  spec.session_networking = shape.session_networking;
  spec.session_installer_proxy = shape.session_installer_proxy;
  return spec;
}

namespace {

void split_spec(const TestSpec& spec, runtime::SandboxShape& shape, runtime::RunPlan& plan) {
  plan = runtime::RunPlan{};
  plan.steps = spec.prelude;
  if (!spec.argv.empty() || !spec.prelude.empty()) plan.steps.push_back(spec.argv);
  plan.networked_steps = spec.networked_prelude;
  plan.installer_allowed_hosts = spec.installer_allowed_hosts;
  plan.files_after_install = spec.files_after_install;
  plan.collect = spec.collect;
  plan.env = spec.env;
  plan.cwd = spec.cwd;
  plan.stdin_path = spec.stdin_path;
  plan.stdin_fd = spec.stdin_fd;
  plan.wall_seconds = spec.limits.wall_seconds;
  plan.output_bytes = spec.limits.output_bytes;
  shape = runtime::SandboxShape{};
  for (const auto& file : spec.files) {
    (file.support ? shape.support_files : plan.files).push_back(file);
  }
  shape.limits = spec.limits;
  shape.workdir = spec.workdir;
  shape.network = spec.network;
  shape.allowed_private_ranges = spec.allowed_private_ranges;
  shape.host_loopback_ports = spec.host_loopback_ports;
  shape.allowed_hosts = spec.allowed_hosts;
  shape.binds = spec.binds;
  shape.host_etc = spec.host_etc;
  shape.image_layers = spec.image_layers;
  shape.image = spec.image;
  shape.image_flattened_dir = spec.image_flattened_dir;
  shape.image_root = spec.image_root;
  shape.hostname = spec.hostname;
  shape.user = spec.user;
  shape.seccomp_profile_path = spec.seccomp_profile_path;
  shape.seccomp_allow = spec.seccomp_allow;
  shape.seccomp_deny = spec.seccomp_deny;
  shape.require_cgroups = spec.require_cgroups;
  shape.session_networking = spec.session_networking;
  shape.session_installer_proxy =
      spec.session_installer_proxy || !spec.installer_allowed_hosts.empty();
}

}  // namespace

runtime::SandboxShape shape_of(const TestSpec& spec) {
  runtime::SandboxShape shape;
  runtime::RunPlan plan;
  split_spec(spec, shape, plan);
  return shape;
}

runtime::RunPlan plan_of(const TestSpec& spec) {
  runtime::SandboxShape shape;
  runtime::RunPlan plan;
  split_spec(spec, shape, plan);
  return plan;
}

}  // namespace paddock
