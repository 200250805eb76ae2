#include "cli/host_paths.h"

#include <unistd.h>

namespace paddock::cli {
namespace {

bool absolute(const std::optional<std::string>& path) {
  return path && path->starts_with("/");
}

}  // namespace

std::string default_store_root(const config::Environment& env) {
  if (auto root = env("PADDOCK_ROOT")) return *root;
  if (auto data = env("XDG_DATA_HOME"); absolute(data)) return *data + "/paddock";
  if (geteuid() == 0) return "/var/lib/paddock";
  auto home = env("HOME");
  return (absolute(home) ? *home : std::string("/tmp")) + "/.local/share/paddock";
}

std::optional<std::string> user_policy_directory(const config::Environment& env) {
  if (auto config = env("XDG_CONFIG_HOME")) return *config + "/paddock/policies";
  if (auto home = env("HOME")) return *home + "/.config/paddock/policies";
  return std::nullopt;
}

std::string default_state_directory(const config::Environment& env) {
  if (auto state = env("XDG_STATE_HOME"); absolute(state)) return *state + "/paddock";
  if (auto home = env("HOME"); absolute(home)) return *home + "/.local/state/paddock";
  return "";
}

std::optional<std::string> user_server_profile_directory(const config::Environment& env) {
  if (auto config = env("XDG_CONFIG_HOME")) return *config + "/paddock/servers";
  if (auto home = env("HOME")) return *home + "/.config/paddock/servers";
  return std::nullopt;
}

rootfs::RegistryConfig registry_config(const config::Environment& env) {
  rootfs::RegistryConfig config;
  if (auto dir = env("DOCKER_CONFIG")) {
    config.docker_config_file = *dir + "/config.json";
  } else if (auto home = env("HOME"); absolute(home)) {
    config.docker_config_file = *home + "/.docker/config.json";
  }
  if (auto xdg = env("XDG_CONFIG_HOME"); absolute(xdg)) {
    config.user_certs_dir = *xdg + "/containers/certs.d";
  } else if (auto home = env("HOME"); absolute(home)) {
    config.user_certs_dir = *home + "/.config/containers/certs.d";
  }
  return config;
}

}  // namespace paddock::cli
