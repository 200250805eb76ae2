#pragma once

// What every request of one `paddock mcp` process shares: its options, the services below the
// protocol (app/services.h: the backend, the language policies, the sessions, the images,
// the secrets to mask, the audit log and the shares), the warm sandboxes and the ready kernels.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "app/language_catalog.h"
#include "app/live_session.h"
#include "app/server_config.h"
#include "app/services.h"
#include "app/warm_pool.h"
#include "language/policy_store.h"
#include "runtime/backend.h"
#include "state/state_dir.h"

namespace paddock::app {

// What the server masks, as "NAME=VALUE" entries: the passed-through variables' values, and the
// brokered secrets' too, which never enter a sandbox but come back if a host echoes them (a
// second line of defence). The one list for results, the audit log and the server's own log.
std::vector<std::string> masked_assignments(const ServerOptions& options);

class ServerState {
 public:
  ServerState(ServerOptions options, std::unique_ptr<Backend> backend, PolicyStore policies,
              std::unique_ptr<AuditLog> audit = nullptr, Shares shares = {},
              std::unique_ptr<state::StateDir> state_dir = nullptr);
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  [[nodiscard]] const ServerOptions& options() const { return options_; }
  [[nodiscard]] Services& services() { return services_; }
  [[nodiscard]] Backend& backend() const { return services_.backend(); }
  [[nodiscard]] const PolicyStore& policies() const { return services_.policies(); }
  [[nodiscard]] SessionRegistry& sessions() { return services_.sessions(); }
  [[nodiscard]] ImageProvisioner& images() { return services_.images(); }
  [[nodiscard]] const SecretMask& secrets() const { return services_.secrets(); }
  [[nodiscard]] const Shares& shares() const { return services_.shares(); }
  [[nodiscard]] WarmPool& warm() { return warm_; }
  // Live sessions' sandboxes with their kernel ready, for create_session (live_session.h).
  [[nodiscard]] KernelPool& kernels() { return kernels_; }
  // Where sessions are kept across restarts (app/kept_sessions.h); null when they are not.
  [[nodiscard]] state::StateDir* state_dir() const { return state_dir_.get(); }
  // What get_language_details learned of each toolchain (app/language_catalog.h).
  [[nodiscard]] ToolchainVersions& toolchain_versions() { return toolchain_versions_; }

  // Appends to the audit log, when there is one.
  void record(const AuditRecord& record) const { services_.record(record); }

 private:
  // A live session of `language` with its kernel ready, for the kernel pool.
  Result<std::unique_ptr<ReadyKernel>> open_ready_kernel(const std::string& language,
                                                         const SandboxShape& shape);

  const ServerOptions options_;
  // Before the sessions (in services_): they hold its sessions' locks and write into it.
  const std::unique_ptr<state::StateDir> state_dir_;
  Services services_;
  ToolchainVersions toolchain_versions_;
  // Last, so that they go first: their sandboxes close while the backend is still there. Each
  // fills only once prepared (after this object is made), and counts the other's as taken room.
  WarmPool warm_;
  KernelPool kernels_;
};

}  // namespace paddock::app
