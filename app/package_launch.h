#pragma once

// A server started by a launcher that downloads its package on first start (`npx -y PKG`):
// where the package comes from, and the installer step that fetches it into the server's kept
// home, so that the server itself never needs the registry. Pure: the wrapper runs the steps.

#include <optional>
#include <string>
#include <vector>

namespace paddock::app {

struct PackageLaunch {
  std::string spec;           // "@modelcontextprotocol/server-memory" or "...@2025.8.4"
  std::string registry_host;  // the only host the installer step may reach
  // Run once with the registry reachable: fetches the package and its dependencies into the
  // launcher's cache under HOME, and exits without starting the server.
  std::vector<std::string> install_command;
  // The server's command, with a pinned version written into its package argument.
  std::vector<std::string> command;
  // The launcher's quiet settings, for the installer step and the server alike (no update
  // notice, no funding or audit requests to the registry).
  std::vector<std::string> install_env;
  // The server's environment: install_env, and the launcher reads its cache alone and never the
  // registry.
  std::vector<std::string> env;
};

// What `command` launches, when it is `npx` with --yes (-y) and a package; `package` and
// `version` are the profile's (a version pins the package wherever the command names it).
// nullopt: the command downloads nothing it is known to (it runs as given).
std::optional<PackageLaunch> package_launch(const std::vector<std::string>& command,
                                            const std::optional<std::string>& package,
                                            const std::optional<std::string>& version);

// The name a server is known by when none is given: the package's last part
// ("server-memory"), else the command's file name; cut to what names a folder.
std::string default_server_name(const std::vector<std::string>& command,
                                const std::optional<PackageLaunch>& launch);

}  // namespace paddock::app
