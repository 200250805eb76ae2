#include "runtime/sandbox_validation.h"

#include <unistd.h>

#include <vector>

#include "net/egress/host_pattern.h"
#include "runtime/setting_names.h"

namespace paddock::runtime {
namespace {

core::Status validate_limits(const SandboxShape& shape, const RunPlan& plan) {
  if (!(plan.wall_seconds > 0) || plan.wall_seconds > kLongestWallSeconds) {
    return core::invalid_input(
        "the timeout must be a number of seconds above 0, and at most 7 days");
  }
  if (shape.limits.cpu_seconds && !(*shape.limits.cpu_seconds > 0)) {
    return core::invalid_input("the CPU time limit must be a number of seconds above 0");
  }
  if (shape.limits.pids < 2) {
    return core::invalid_input("the process limit must be at least 2 (init and the program)");
  }
  if (shape.limits.memory_bytes < (1u << 20)) {
    return core::invalid_input("the memory limit must be at least 1 MiB");
  }
  return {};
}

// The program's files, the policy's and the caller's: each a relative path in the work
// directory, and all of them together within its size.
core::Status validate_files(const SandboxShape& shape, const RunPlan& plan) {
  std::uint64_t file_bytes = 0;
  std::vector<const SandboxFile*> all_files;
  for (const auto& file : plan.files) all_files.push_back(&file);
  for (const auto& file : shape.support_files) all_files.push_back(&file);
  for (const auto& file : plan.files_after_install) all_files.push_back(&file);
  for (const SandboxFile* entry : all_files) {
    const SandboxFile& file = *entry;
    if (file.path.empty() || file.path[0] == '/' || !is_absolute_clean("/" + file.path) ||
        file.path.ends_with("/")) {
      return core::invalid_input("file '" + file.path +
                                 "' must be a relative path inside the work directory");
    }
    file_bytes += file.content.size();
  }
  if (file_bytes > shape.limits.work_bytes) {
    return core::invalid_input("the files given (" + std::to_string(file_bytes) +
                               " bytes) do not fit the work directory's size (" +
                               std::to_string(shape.limits.work_bytes) + " bytes)");
  }
  return {};
}

core::Status validate_commands(const RunPlan& plan, bool session) {
  if (!session && (plan.program().empty() || plan.program()[0].empty())) {
    return core::invalid_input("no command given: the run has no program to start");
  }
  std::size_t prelude = plan.steps.empty() ? 0 : plan.steps.size() - 1;
  if (plan.networked_steps > prelude) {
    return core::invalid_input("more networked prelude commands than prelude commands");
  }
  for (std::size_t step = 0; step < prelude; ++step) {
    const auto& command = plan.steps[step];
    if (command.empty() || command[0].empty())
      return core::invalid_input("a prelude command is empty");
  }
  for (const auto& entry : plan.env) {
    auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      return core::invalid_input("environment entry '" + entry + "' must look like NAME=VALUE");
    }
  }
  return {};
}

core::Status validate_network(const SandboxShape& shape, const RunPlan& plan) {
  if (!shape.allowed_hosts.empty() && shape.network != NetworkMode::kNone) {
    return core::invalid_input(std::string("an egress allowlist is the sandbox's only network: it "
                                           "cannot be combined with the network mode '") +
                               to_string(shape.network) + "'");
  }
  // Checked here so a bad pattern is one line before anything starts.
  for (const auto* list : {&shape.allowed_hosts, &plan.installer_allowed_hosts}) {
    for (const auto& text : *list) {
      if (auto pattern = net::egress::parse_host_pattern(text); !pattern) return pattern.error();
    }
  }
  return {};
}

// A refusal of what `support.backend` lacks: what it cannot do, then the fix.
core::Error lacks(const BackendSupport& support, const std::string& what, const std::string& fix,
                  const char* setting = nullptr) {
  core::Error error{ENOTSUP,
                    "the " + std::string(support.backend) + " backend cannot " + what + ": " + fix};
  return setting != nullptr ? naming_setting(std::move(error), setting) : error;
}

// The network settings a backend without paddock's egress proxy cannot carry out: the program
// would run with whatever network the engine gives, or none, without a word.
core::Status validate_egress_support(const SandboxShape& shape, const RunPlan& plan,
                                     const BackendSupport& support) {
  if (support.egress_proxy) return {};
  if (shape.ask_network) {
    return lacks(support, "ask the user about a host (--ask network)",
                 "leave --ask network out, or use the native backend");
  }
  if (!shape.allowed_hosts.empty()) {
    return lacks(support, "enforce an egress allowlist yet",
                 "leave the allowlist out, or use the native backend",
                 setting_names::kAllowedHosts);
  }
  // Likewise an installer limited to its package index: it must not get the engine's whole
  // network instead. Giving it that is the operator's choice, made by name.
  if (plan.networked_steps > 0 && !plan.installer_allowed_hosts.empty() &&
      shape.network == NetworkMode::kNone) {
    return lacks(support,
                 "limit a library installer to its package index (the policy's "
                 "network.install_allow)",
                 "use the native backend, or give installers the open network by name (the "
                 "installers' network \"user\", or network.install \"user\" in a policy override)",
                 setting_names::kInstallNetwork);
  }
  if (!shape.trust_bundle.empty()) {
    return lacks(support, "broker secrets (they go through the native backend's egress proxy)",
                 "leave the secrets out, or use the native backend", setting_names::kSecrets);
  }
  return {};
}

core::Status validate_support(const SandboxShape& shape, const RunPlan& plan,
                              const BackendSupport& support) {
  if (auto egress = validate_egress_support(shape, plan, support); !egress) return egress;
  if (!support.binds && !shape.binds.empty()) {
    return lacks(support, "bind host folders into a sandbox ('" + shape.binds[0].host_path + "')",
                 "leave the binds out, or use the native backend", setting_names::kBinds);
  }
  if (!support.cpu_time && shape.limits.cpu_seconds) {
    return lacks(support, "limit each process's CPU time (it sets no rlimits)",
                 "leave the CPU time limit out, or use another backend", setting_names::kCpuTime);
  }
  if (!support.memory_high && shape.limits.memory_high_bytes) {
    return lacks(support, "throttle memory below its limit (memory.high)",
                 "leave the memory threshold out, or use the native backend");
  }
  if (!support.seccomp_changes &&
      (shape.seccomp_profile_path || !shape.seccomp_allow.empty() || !shape.seccomp_deny.empty())) {
    return lacks(support,
                 "load a seccomp profile file of this host, or allow or deny system calls on top "
                 "of a profile",
                 "install the profile on every node and name it as the Kubernetes seccomp "
                 "profile, and leave the policy's seccomp settings out",
                 setting_names::kKubeSeccompProfile);
  }
  return {};
}

}  // namespace

bool is_absolute_clean(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  return path.find("/../") == std::string::npos && !path.ends_with("/..") &&
         path.find("/./") == std::string::npos && path.find('\0') == std::string::npos;
}

bool is_reserved_path(const std::string& path) {
  for (const char* reserved :
       {"/proc", "/dev", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::string prefix(reserved);
    if (path == prefix || path.starts_with(prefix + "/")) return true;
  }
  return path == "/";
}

core::Status validate_sandbox(const SandboxShape& shape, const RunPlan& plan, bool session,
                              const BackendSupport& support) {
  if (auto steps = validate_commands(plan, session); !steps) return steps;
  if (!is_absolute_clean(shape.workdir) || is_reserved_path(shape.workdir)) {
    return core::invalid_input("work directory '" + shape.workdir +
                               "' must be an absolute path outside /proc, /dev, /usr and /etc");
  }
  if (!plan.cwd.empty() && !is_absolute_clean(plan.cwd)) {
    return core::invalid_input("the starting directory '" + plan.cwd +
                               "' must be an absolute path inside the sandbox");
  }
  if (auto limits = validate_limits(shape, plan); !limits) return limits;
  if (shape.hostname.empty() || shape.hostname.size() > 64) {
    return core::invalid_input("hostname must be 1 to 64 characters");
  }
  if (auto files = validate_files(shape, plan); !files) return files;
  if (shape.user.uid == 0 || shape.user.gid == 0 || shape.user.uid > 0x7fffffff ||
      shape.user.gid > 0x7fffffff) {
    return core::invalid_input("the sandbox user must not be root (uid and gid 0), and below 2^31");
  }
  if (shape.user.name.empty() || shape.user.name.find_first_of(":\n/") != std::string::npos) {
    return core::invalid_input("the sandbox user's name '" + shape.user.name +
                               "' is not a user name");
  }
  if (auto network = validate_network(shape, plan); !network) return network;
  if (auto supported = validate_support(shape, plan, support); !supported) return supported;
  if (plan.stdin_fd < 0 && plan.stdin_path && access(plan.stdin_path->c_str(), R_OK) != 0) {
    return core::system_error("the stdin file " + *plan.stdin_path + " cannot be read");
  }
  return {};
}

}  // namespace paddock::runtime
