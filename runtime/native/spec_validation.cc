#include "runtime/native/spec_validation.h"

#include <sys/stat.h>
#include <unistd.h>

#include "runtime/native/egress_plan.h"
#include "runtime/native/init/child.h"

namespace paddock {
namespace {

bool is_absolute_clean(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  return path.find("/../") == std::string::npos && !path.ends_with("/..") &&
         path.find("/./") == std::string::npos && path.find('\0') == std::string::npos;
}

bool is_reserved(const std::string& path) {
  for (const char* reserved :
       {"/proc", "/dev", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::string prefix(reserved);
    if (path == prefix || path.starts_with(prefix + "/")) return true;
  }
  return path == "/";
}

}  // namespace

Status validate_spec(const SandboxShape& shape, const RunPlan& plan, bool session) {
  if (!session && (plan.program().empty() || plan.program()[0].empty())) {
    return invalid_input("no command given; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
  }
  if (!is_absolute_clean(shape.workdir) || is_reserved(shape.workdir)) {
    return invalid_input("work directory '" + shape.workdir +
                         "' must be an absolute path outside /proc, /dev, /usr and /etc");
  }
  for (const auto& name : shape.host_etc) {
    if (!is_host_etc_name(name)) {
      return invalid_input("host /etc entry '" + name +
                           "' refused: name one entry of /etc, not a path, a secret or a file "
                           "paddock writes itself");
    }
  }
  if (!plan.cwd.empty() && !is_absolute_clean(plan.cwd)) {
    return invalid_input("--workdir '" + plan.cwd +
                         "' must be an absolute path inside the sandbox");
  }
  if (!(plan.wall_seconds > 0) || plan.wall_seconds > 7 * 24 * 3600) {
    return invalid_input("--timeout must be a number of seconds above 0");
  }
  if (shape.limits.cpu_seconds && !(*shape.limits.cpu_seconds > 0)) {
    return invalid_input("--cpu-time must be a number of seconds above 0");
  }
  if (shape.limits.pids < 2)
    return invalid_input("--pids must be at least 2 (init and the program)");
  if (shape.limits.memory_bytes < (1u << 20)) return invalid_input("--memory must be at least 1m");
  if (shape.hostname.empty() || shape.hostname.size() > 64) {
    return invalid_input("hostname must be 1 to 64 characters");
  }
  for (const auto& entry : plan.env) {
    auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      return invalid_input("--env '" + entry + "' must look like NAME=VALUE");
    }
  }
  std::uint64_t file_bytes = 0;
  std::vector<const SandboxFile*> all_files;
  for (const auto& file : plan.files) all_files.push_back(&file);
  for (const auto& file : shape.support_files) all_files.push_back(&file);
  for (const auto& file : plan.files_after_install) all_files.push_back(&file);
  for (const SandboxFile* entry : all_files) {
    const SandboxFile& file = *entry;
    if (file.path.empty() || file.path[0] == '/' || !is_absolute_clean("/" + file.path) ||
        file.path.ends_with("/")) {
      return invalid_input("file '" + file.path +
                           "' must be a relative path inside the work directory");
    }
    file_bytes += file.content.size();
  }
  if (file_bytes > shape.limits.work_bytes) {
    return invalid_input("the files given (" + std::to_string(file_bytes) +
                         " bytes) do not fit the work directory (--work-size)");
  }
  std::size_t prelude = plan.steps.empty() ? 0 : plan.steps.size() - 1;
  if (plan.networked_steps > prelude) {
    return invalid_input("more networked prelude commands than prelude commands");
  }
  for (std::size_t step = 0; step < prelude; ++step) {
    const auto& command = plan.steps[step];
    if (command.empty() || command[0].empty()) return invalid_input("a prelude command is empty");
  }
  if (shape.user.uid == 0 || shape.user.gid == 0 || shape.user.uid > 0x7fffffff ||
      shape.user.gid > 0x7fffffff) {
    return invalid_input("the sandbox user must not be root (uid and gid 0), and below 2^31");
  }
  if (shape.user.name.empty() || shape.user.name.find_first_of(":\n/") != std::string::npos) {
    return invalid_input("the sandbox user's name '" + shape.user.name + "' is not a user name");
  }
  if (shape.image_layers.size() > kMaxLayers) {
    return invalid_input("images of more than " + std::to_string(kMaxLayers) +
                         " layers are not supported");
  }
  if (shape.image_root == ImageRoot::kFlattened && shape.image_layers.size() != 1) {
    return invalid_input("a flattened image root is one directory, not " +
                         std::to_string(shape.image_layers.size()));
  }
  for (const auto& layer : shape.image_layers) {
    if (layer.empty() || layer[0] != '/') {
      return invalid_input("image layer '" + layer + "' must be an absolute host path");
    }
  }
  if (!shape.allowed_hosts.empty()) {
    if (shape.network != NetworkMode::kNone) {
      return invalid_input(std::string("an egress allowlist (--allow-host) is the sandbox's only "
                                       "network: it cannot be combined with --network ") +
                           to_string(shape.network));
    }
  }
  // Checked here so a bad pattern is one line before anything starts.
  for (const auto* list : {&shape.allowed_hosts, &plan.installer_allowed_hosts}) {
    if (auto parsed = allow_list(*list); !parsed) return parsed.error();
  }
  if (!shape.trust_bundle.empty()) {
    struct stat bundle {};
    if (!shape.trust_bundle.starts_with("/") || stat(shape.trust_bundle.c_str(), &bundle) != 0 ||
        !S_ISREG(bundle.st_mode)) {
      return invalid_input("the brokered secrets' trust bundle '" + shape.trust_bundle +
                           "' is not a file on the host");
    }
  }
  if (shape.binds.size() + (shape.trust_bundle.empty() ? 0 : 1) > kMaxBinds) {
    return invalid_input("at most " + std::to_string(kMaxBinds) + " bind mounts are supported");
  }
  for (const auto& bind : shape.binds) {
    if (!is_absolute_clean(bind.sandbox_path) || is_reserved(bind.sandbox_path)) {
      return invalid_input("bind target '" + bind.sandbox_path +
                           "' must be an absolute path outside /proc, /dev, /usr and /etc");
    }
    struct stat info {};
    if (!bind.host_path.starts_with("/") || stat(bind.host_path.c_str(), &info) != 0) {
      return invalid_input("bind source '" + bind.host_path +
                           "' does not exist on the host (give an absolute path)");
    }
    // Checked again on the tree init binds (mount_applier.cc); here for a clear error.
    if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) {
      return invalid_input("bind source '" + bind.host_path +
                           "' is a socket, FIFO or device, which would be a channel to the "
                           "host: bind a folder or a regular file");
    }
  }
  if (plan.stdin_fd < 0 && plan.stdin_path && access(plan.stdin_path->c_str(), R_OK) != 0) {
    return system_error("--stdin file " + *plan.stdin_path + " cannot be read");
  }
  return {};
}

}  // namespace paddock
