#pragma once

// Who paddock is to a registry, and which CA it trusts there, as Docker and Podman find them:
// --creds, ~/.docker/config.json, certs.d directories.

#include <optional>
#include <string>

#include "core/result.h"

namespace paddock::rootfs {

// Where this user keeps registry configuration, as Docker and Podman find it; resolved from
// the environment by the command line (cli/host_paths.h).
struct RegistryConfig {
  // $DOCKER_CONFIG/config.json, else ~/.docker/config.json; unset: no file.
  std::optional<std::string> docker_config_file;
  // $XDG_CONFIG_HOME/containers/certs.d, else ~/.config/containers/certs.d; unset: none.
  std::optional<std::string> user_certs_dir;
};

struct Credentials {
  std::string user;
  std::string password;
};

// The CA a registry's certificate is issued by, where the user put one as Docker and Podman
// read it: certs.d/<host[:port]>/ca.crt under the user's certs.d (config.user_certs_dir),
// /etc/containers or /etc/docker. None: the system's CAs.
std::optional<std::string> registry_ca_file(const std::string& host, const RegistryConfig& config);

// `creds` when given ("USER:PASS"), else the entry for `registry` in the user's Docker config
// file (auths.<registry>.auth, base64 "user:pass"), else none.
core::Result<std::optional<Credentials>> find_credentials(const std::string& registry,
                                                          const std::optional<std::string>& creds,
                                                          const RegistryConfig& config);

}  // namespace paddock::rootfs
