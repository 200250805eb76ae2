#pragma once

// Where paddock keeps and finds things on this host, as the environment says (HOME, the XDG
// directories, PADDOCK_ROOT, DOCKER_CONFIG): found here, the one floor that reads the
// environment, and handed to the floors below as plain paths.

#include <optional>
#include <string>

#include "config/settings.h"
#include "rootfs/registry_credentials.h"

namespace paddock::cli {

// The image store: $PADDOCK_ROOT, else $XDG_DATA_HOME/paddock, else /var/lib/paddock as root and
// ~/.local/share/paddock for other users (what every command's --root help says).
std::string default_store_root(const config::Environment& env);

// The user's own language policies: $XDG_CONFIG_HOME/paddock/policies, else
// ~/.config/paddock/policies; none without either variable.
std::optional<std::string> user_policy_directory(const config::Environment& env);

// Where kept sessions and wrapped servers' homes live unless --state-dir says:
// $XDG_STATE_HOME/paddock, else ~/.local/state/paddock; empty without either variable.
std::string default_state_directory(const config::Environment& env);

// The user's own server profiles (`paddock wrap --profile`): $XDG_CONFIG_HOME/paddock/servers,
// else ~/.config/paddock/servers; none without either variable.
std::optional<std::string> user_server_profile_directory(const config::Environment& env);

// The user's Docker config file and certs.d directory, as Docker and Podman find them.
rootfs::RegistryConfig registry_config(const config::Environment& env);

}  // namespace paddock::cli
