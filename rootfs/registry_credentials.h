#pragma once

// Who paddock is to a registry, and which CA it trusts there, as Docker and Podman find them:
// --creds, ~/.docker/config.json, certs.d directories.

#include <optional>
#include <string>

#include "core/result.h"

namespace paddock::rootfs {

struct Credentials {
  std::string user;
  std::string password;
};

// The CA a registry's certificate is issued by, where the user put one as Docker and Podman
// read it: certs.d/<host[:port]>/ca.crt under $XDG_CONFIG_HOME/containers (or
// ~/.config/containers), /etc/containers or /etc/docker. None: the system's CAs.
std::optional<std::string> registry_ca_file(const std::string& host);

// `creds` when given ("USER:PASS"), else the entry for `registry` in $DOCKER_CONFIG/config.json
// or ~/.docker/config.json (auths.<registry>.auth, base64 "user:pass"), else none.
Result<std::optional<Credentials>> find_credentials(const std::string& registry,
                                                    const std::optional<std::string>& creds);

}  // namespace paddock::rootfs
