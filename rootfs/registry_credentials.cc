#include "rootfs/registry_credentials.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/text.h"

namespace paddock::rootfs {
namespace {

using json = nlohmann::json;

core::Result<Credentials> split_creds(const std::string& text, const std::string& where) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) {
    return core::invalid_input(where + " must be USER:PASSWORD");
  }
  return Credentials{text.substr(0, colon), text.substr(colon + 1)};
}

// The host part of a config.json key: "https://index.docker.io/v1/" -> "index.docker.io".
std::string host_of_key(std::string key) {
  if (auto scheme = key.find("://"); scheme != std::string::npos) key = key.substr(scheme + 3);
  if (auto slash = key.find('/'); slash != std::string::npos) key = key.substr(0, slash);
  return core::to_lower(key);
}

}  // namespace

core::Result<std::optional<Credentials>> find_credentials(const std::string& registry,
                                                          const std::optional<std::string>& creds,
                                                          const RegistryConfig& config) {
  if (creds) {
    auto split = split_creds(*creds, "--creds");
    if (!split) return split.error();
    return std::optional<Credentials>(*split);
  }
  if (!config.docker_config_file) return std::optional<Credentials>();
  const std::string& path = *config.docker_config_file;
  std::ifstream file(path);
  if (!file) return std::optional<Credentials>();
  json docker = json::parse(file, nullptr, false);
  if (!docker.is_object() || !docker.contains("auths") || !docker["auths"].is_object()) {
    return std::optional<Credentials>();
  }
  // Docker Hub is written every which way: docker.io, index.docker.io/v1/, registry-1...
  auto same_registry = [&](const std::string& host) {
    if (host == core::to_lower(registry)) return true;
    return registry == "docker.io" &&
           (host == "index.docker.io" || host == "registry-1.docker.io" || host == "docker.io");
  };
  for (const auto& [key, entry] : docker["auths"].items()) {
    if (!entry.is_object() || !same_registry(host_of_key(key))) continue;
    if (entry.contains("auth") && entry["auth"].is_string()) {
      auto decoded = core::base64_decode(core::trim(entry["auth"].get<std::string>()));
      if (!decoded) return core::invalid_input(path + ": auths." + key + ".auth is not base64");
      auto split = split_creds(*decoded, path + ": auths." + key + ".auth");
      if (!split) return split.error();
      return std::optional<Credentials>(*split);
    }
    if (entry.contains("username") && entry.contains("password")) {
      return std::optional<Credentials>(
          Credentials{entry.value("username", ""), entry.value("password", "")});
    }
  }
  return std::optional<Credentials>();
}

std::optional<std::string> registry_ca_file(const std::string& host, const RegistryConfig& config) {
  std::vector<std::string> directories;
  if (config.user_certs_dir) directories.push_back(*config.user_certs_dir);
  directories.insert(directories.end(), {"/etc/containers/certs.d", "/etc/docker/certs.d"});
  for (const auto& directory : directories) {
    std::string file = directory + "/" + host + "/ca.crt";
    if (access(file.c_str(), R_OK) == 0) return file;
  }
  return std::nullopt;
}

}  // namespace paddock::rootfs
