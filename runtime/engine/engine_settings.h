#pragma once

// What the docker and podman backends are given by the one that creates them (cli/): where the
// engine listens, as Docker's and Podman's own clients find it, and paddock's settings for
// them, resolved above and typed here, so nothing of these backends reads the environment.

#include <optional>
#include <string>

namespace paddock::engine {

struct EngineSettings {
  // Docker's client settings: DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH (default
  // $HOME/.docker).
  std::optional<std::string> docker_host;
  bool docker_tls_verify = false;
  std::optional<std::string> docker_cert_path;
  std::optional<std::string> home;
  // Podman's: CONTAINER_HOST, else the rootless socket under XDG_RUNTIME_DIR.
  std::optional<std::string> container_host;
  // XDG_RUNTIME_DIR, for Podman's socket and the seccomp profiles paddock writes for it.
  std::optional<std::string> runtime_dir;
  // PADDOCK_ENGINE_NETWORK: the network a sandbox with a network joins (checked on connect).
  std::optional<std::string> network;
};

}  // namespace paddock::engine
