#pragma once

// What every request of one `paddock mcp` process shares: its options, the backend that runs
// sandboxes, the language policies (loaded, checked and adjusted to the options once, at start),
// the sessions, the images settled so far, the secrets to mask and the audit log.

#include <memory>
#include <optional>
#include <string>

#include "language/policy_store.h"
#include "mcp/audit_log.h"
#include "mcp/image_provisioner.h"
#include "mcp/secret_mask.h"
#include "mcp/server_config.h"
#include "mcp/session_registry.h"
#include "mcp/shares.h"
#include "mcp/warm_pool.h"
#include "runtime/backend.h"
#include "runtime/warm_run.h"

namespace paddock::mcp {

class ServerState {
 public:
  ServerState(ServerOptions server_options, std::unique_ptr<Backend> sandbox_backend,
              PolicyStore language_policies, std::unique_ptr<AuditLog> audit_log = nullptr,
              Shares shared_folders = {})
      : options(std::move(server_options)),
        backend(std::move(sandbox_backend)),
        policies(std::move(language_policies)),
        sessions(options.max_sessions, options.max_session_idle_seconds),
        images(*backend, options.pull_missing_images),
        secrets(options.pass_through_env),
        audit(std::move(audit_log)),
        shares(std::move(shared_folders)),
        warm(
            warm_pool_size(options, *backend),
            [this](const SandboxShape& shape) { return open_warm(*backend, shape); },
            [this](std::size_t pool_sandboxes) {
              // Warm sandboxes count against the sessions' cap: they never crowd one out.
              return sessions.size() + pool_sandboxes < options.max_sessions;
            }) {}

  // Appends to the audit log, when there is one.
  void record(const AuditRecord& record) const {
    if (audit) audit->record(record, secrets);
  }

  const ServerOptions options;
  const std::unique_ptr<Backend> backend;
  const PolicyStore policies;
  SessionRegistry sessions;
  ImageProvisioner images;
  const SecretMask secrets;
  const std::unique_ptr<AuditLog> audit;  // null without --audit-log
  const Shares shares;                    // the host folders the user shared (--share)
  // Last, so that it goes first: its sandboxes close while the backend is still there.
  WarmPool warm;

 private:
  // Only the native backend's sandboxes wait warm: a container backend's calls run cold.
  static std::size_t warm_pool_size(const ServerOptions& options, const Backend& backend) {
    return backend.name() == "native" ? options.warm_per_language : 0;
  }
};

}  // namespace paddock::mcp
