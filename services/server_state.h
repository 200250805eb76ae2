#pragma once

// What every request of one `paddock mcp` process shares: its options, the services below the
// protocol (services/services.h: the backend, the language policies, the sessions, the images,
// the secrets to mask, the audit log and the shares), and the warm sandboxes.

#include <cstddef>
#include <memory>

#include "language/policy_store.h"
#include "runtime/backend.h"
#include "services/server_config.h"
#include "services/services.h"
#include "services/warm_pool.h"

namespace paddock::mcp {

class ServerState {
 public:
  ServerState(ServerOptions options, std::unique_ptr<Backend> backend, PolicyStore policies,
              std::unique_ptr<AuditLog> audit = nullptr, Shares shares = {});
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

  // Appends to the audit log, when there is one.
  void record(const AuditRecord& record) const { services_.record(record); }

 private:
  const ServerOptions options_;
  Services services_;
  // Last, so that it goes first: its sandboxes close while the backend is still there.
  WarmPool warm_;
};

}  // namespace paddock::mcp
