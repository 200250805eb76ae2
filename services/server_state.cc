#include "services/server_state.h"

#include "runtime/warm_run.h"

namespace paddock::mcp {
namespace {

ServiceSettings service_settings(const ServerOptions& options) {
  return {.max_sessions = options.max_sessions,
          .max_session_idle_seconds = options.max_session_idle_seconds,
          .pull_missing_images = options.pull_missing_images,
          .pass_through_env = options.pass_through_env};
}

// Only a backend that can keep sandboxes warm gets a pool: the others' calls run cold.
std::size_t warm_pool_size(const ServerOptions& options, const Backend& backend) {
  return backend.abilities().warm ? options.warm_per_language : 0;
}

}  // namespace

ServerState::ServerState(ServerOptions options, std::unique_ptr<Backend> backend,
                         PolicyStore policies, std::unique_ptr<AuditLog> audit, Shares shares)
    : options_(std::move(options)),
      services_(service_settings(options_), std::move(backend), std::move(policies),
                std::move(audit), std::move(shares)),
      warm_(
          warm_pool_size(options_, services_.backend()),
          [this](const SandboxShape& shape, const std::optional<WarmInterpreter>& interpreter) {
            return open_warm(services_.backend(), shape, interpreter);
          },
          [this](std::size_t pool_sandboxes) {
            // Warm sandboxes count against the sessions' cap: they never crowd one out.
            return services_.sessions().size() + pool_sandboxes < options_.max_sessions;
          }) {}

}  // namespace paddock::mcp
