#pragma once

// What every request of one `paddock mcp` process shares: its options, the backend that runs
// sandboxes, the language policies (loaded and checked once, at start) and the sessions.

#include <memory>
#include <optional>
#include <string>

#include "backend.h"
#include "language/policy_store.h"
#include "session_registry.h"

namespace paddock::mcp {

struct ServerOptions {
  std::string backend = "native";
  std::optional<std::string> policy_dir;
  std::size_t workers = 8;       // tool calls served at once
  std::size_t max_queued = 256;  // calls waiting beyond that; more are refused
  std::size_t max_sessions = 16;
  double session_idle_seconds = 1800;  // default ttl_seconds of a session
  double max_session_idle_seconds = 86400;
  double max_timeout_seconds = 300;  // cap on execute_code's timeout
  std::string log_level = "info";
};

class ServerState {
 public:
  ServerState(ServerOptions server_options, std::unique_ptr<Backend> sandbox_backend,
              PolicyStore language_policies)
      : options(std::move(server_options)),
        backend(std::move(sandbox_backend)),
        policies(std::move(language_policies)),
        sessions(options.max_sessions, options.max_session_idle_seconds) {}

  const ServerOptions options;
  const std::unique_ptr<Backend> backend;
  const PolicyStore policies;
  SessionRegistry sessions;
};

}  // namespace paddock::mcp
