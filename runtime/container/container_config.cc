#include "runtime/container/container_config.h"
#include "runtime/container/sandbox_owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <functional>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>

#include "core/files.h"
#include "embedded_policies.h"
#include "runtime/container/session_scripts.h"

namespace paddock::container {

core::Result<std::string> seccomp_profile_text(const runtime::SandboxShape& shape) {
  std::string text(policies::default_seccomp_profile_json());
  if (shape.seccomp_profile_path) {
    auto read = core::read_text_file(*shape.seccomp_profile_path, "seccomp profile");
    if (!read) return read.error();
    text = *read;
  }
  auto profile = nlohmann::json::parse(text, nullptr, false);
  if (!profile.is_object()) {
    return core::invalid_input("seccomp profile " + shape.seccomp_profile_path.value_or("default") +
                               " is not JSON");
  }
  auto& rules = profile["syscalls"];
  if (!rules.is_array()) rules = nlohmann::json::array();
  if (!shape.seccomp_deny.empty()) {
    // A denied call leaves every rule that names it; then one rule refuses it.
    for (auto& rule : rules) {
      if (!rule.contains("names") || !rule["names"].is_array()) continue;
      auto& names = rule["names"];
      for (const auto& denied : shape.seccomp_deny) {
        names.erase(std::remove(names.begin(), names.end(), denied), names.end());
      }
    }
    rules.push_back({{"names", shape.seccomp_deny}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", 1}});
  }
  if (!shape.seccomp_allow.empty()) {
    rules.push_back({{"names", shape.seccomp_allow}, {"action", "SCMP_ACT_ALLOW"}});
  }
  return profile.dump();
}

core::Result<std::string> seccomp_profile_file(const std::string& profile,
                                               const std::optional<std::string>& runtime_dir) {
  std::string dir = runtime_dir && runtime_dir->starts_with("/")
                        ? *runtime_dir + "/paddock"
                        : "/tmp/paddock-" + std::to_string(geteuid());
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return core::system_error("creating " + dir);
  struct stat info {};
  if (lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != geteuid()) {
    return core::Error{EPERM, dir + " is not a directory of this user's; remove it"};
  }
  char name[32];
  std::snprintf(name, sizeof name, "/seccomp-%016zx.json", std::hash<std::string>{}(profile));
  std::string path = dir + name;
  if (access(path.c_str(), R_OK) == 0) return path;
  std::string temp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << profile;
    if (!out) return core::system_error("writing " + temp);
  }
  if (rename(temp.c_str(), path.c_str()) != 0) return core::system_error("writing " + path);
  return path;
}

bool valid_network_name(const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !name.empty() && word(name[0]) && std::all_of(name.begin(), name.end(), [&](char c) {
    return word(c) || c == '_' || c == '.' || c == '-';
  });
}

nlohmann::json sandbox_labels() {
  nlohmann::json labels = owner_labels(this_paddock());
  labels[kSandboxLabel] = "1";
  return labels;
}

nlohmann::json container_config(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                                const ContainerOptions& options) {
  const runtime::SandboxLimits& limits = shape.limits;
  std::string owner = std::to_string(shape.user.uid) + ":" + std::to_string(shape.user.gid);
  // Compiled programs run from the work directory: "exec", which Docker's tmpfs default lacks,
  // as the native backend's tmpfs has it. The work directory belongs to the sandbox user: Docker
  // takes uid=/gid= options, Podman its own "U" (chown to the container's user).
  std::string work_owner =
      options.tmpfs_owner_option
          ? ",U"
          : ",uid=" + std::to_string(shape.user.uid) + ",gid=" + std::to_string(shape.user.gid);
  nlohmann::json tmpfs = {
      {shape.workdir, "rw,exec,nosuid,nodev,size=" + std::to_string(limits.work_bytes) +
                          work_owner + ",mode=0755"},
      {"/tmp", "rw,exec,nosuid,nodev,size=" + std::to_string(limits.tmp_bytes) + ",mode=1777"},
  };
  nlohmann::json host = {
      {"NetworkMode", wants_network(shape, plan) ? options.network : "none"},
      {"CapDrop", {"ALL"}},
      {"SecurityOpt",
       {"no-new-privileges",
        "seccomp=" + (options.seccomp_file.empty() ? options.seccomp_json : options.seccomp_file)}},
      {"ReadonlyRootfs", true},
      {"Tmpfs", tmpfs},
      {"Ulimits",
       {{{"Name", "nofile"}, {"Soft", limits.open_files}, {"Hard", limits.open_files}},
        {{"Name", "fsize"}, {"Soft", limits.file_size_bytes}, {"Hard", limits.file_size_bytes}}}},
  };
  if (limits.cpu_seconds) {
    // As the native backend's (runtime/rlimit_plan.cc): SIGXCPU at the limit, SIGKILL a second
    // later.
    auto seconds = static_cast<std::uint64_t>(std::ceil(*limits.cpu_seconds));
    if (seconds == 0) seconds = 1;
    host["Ulimits"].push_back({{"Name", "cpu"}, {"Soft", seconds}, {"Hard", seconds + 1}});
  }
  if (!options.resource_limits) {
    // No cgroups (a rootless engine on cgroup v1): rlimits stand in, as in the native backend's
    // rlimit mode. RLIMIT_NPROC counts the sandbox user's processes in the engine's user
    // namespace (shared by that engine's containers, so stricter, never looser); RLIMIT_DATA
    // binds each process, not the container.
    host["Ulimits"].push_back({{"Name", "nproc"}, {"Soft", limits.pids}, {"Hard", limits.pids}});
    host["Ulimits"].push_back(
        {{"Name", "data"}, {"Soft", limits.memory_bytes}, {"Hard", limits.memory_bytes}});
  } else if (options.tmpfs_owner_option) {
    // Podman with runc sets every rlimit it inherits; an unlimited RLIMIT_NPROC of the service
    // fails there, so it gets one (as Podman's own containers.conf examples do).
    host["Ulimits"].push_back({{"Name", "nproc"}, {"Soft", 4096}, {"Hard", 4096}});
  }
  if (options.resource_limits) {
    host["Memory"] = limits.memory_bytes;
    host["MemorySwap"] = limits.allow_swap ? -1 : static_cast<std::int64_t>(limits.memory_bytes);
    host["PidsLimit"] = limits.pids;
    if (limits.cpus) host["NanoCpus"] = static_cast<std::int64_t>(std::llround(*limits.cpus * 1e9));
  }
  std::vector<std::string> env = runtime::default_sandbox_env();
  for (const auto& entry : plan.env) {
    std::string name = entry.substr(0, entry.find('='));
    std::erase_if(env, [&](const std::string& old) { return old.starts_with(name + "="); });
    env.push_back(entry);
  }
  env.push_back("PADDOCK_MEMORY_LIMIT_BYTES=" + std::to_string(limits.memory_bytes));
  return {
      {"Image", options.image},
      // The keeper (kKeeperScript) is the sandbox user's too, and as PID 1 it survives the
      // kill(-1) that ends each command.
      {"Entrypoint", {"sh", "-c"}},
      {"Cmd", {kKeeperScript}},
      {"User", owner},
      {"WorkingDir", plan.cwd.empty() ? shape.workdir : plan.cwd},
      {"Env", env},
      {"Hostname", shape.hostname},
      {"NetworkDisabled", !wants_network(shape, plan)},
      {"Labels", sandbox_labels()},
      {"HostConfig", host},
  };
}

}  // namespace paddock::container
