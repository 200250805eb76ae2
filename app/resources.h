#pragma once

// What every request of one server shares below the protocol: the backend that runs sandboxes,
// the language policies (loaded, checked and adjusted to the options once, at start), the
// sessions, the images settled so far, the secrets to mask, the audit log and the shares.
// It owns them, and hands each out to what needs it (app/server_state.h, the root).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "app/audit_log.h"
#include "app/audit_trail.h"
#include "app/image_provisioner.h"
#include "app/secret_mask.h"
#include "app/session_registry.h"
#include "app/shares.h"
#include "language/policy_store.h"
#include "runtime/backend.h"

namespace paddock::app {

// What the services are set to, from the server's options.
struct ServiceSettings {
  std::size_t max_sessions = 16;
  double max_session_idle_seconds = 86400;  // the most a session's ttl may be
  bool pull_missing_images = true;
  std::vector<std::string> pass_through_env;  // NAME=VALUE: the values are masked
  bool allow_preview = false;                 // expose_port (docs/previews.md)
  net::preview::PreviewPortRange preview_ports;
  std::size_t max_previews = net::preview::kDefaultMaxPreviews;
};

class Resources {
 public:
  Resources(const ServiceSettings& settings, std::unique_ptr<runtime::Backend> backend,
            language::PolicyStore policies, std::unique_ptr<AuditLog> audit = nullptr,
            Shares shares = {});
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;

  [[nodiscard]] runtime::Backend& backend() const { return *backend_; }
  [[nodiscard]] const language::PolicyStore& policies() const { return policies_; }
  [[nodiscard]] SessionRegistry& sessions() { return sessions_; }
  [[nodiscard]] ImageProvisioner& images() { return images_; }
  [[nodiscard]] const SecretMask& secrets() const { return secrets_; }
  // The host folders the user shared (--share), and the client's roots (--share-roots), which a
  // front-end replaces as the client lists them.
  [[nodiscard]] Shares& shares() { return shares_; }

  // Where the services write their audit lines.
  [[nodiscard]] const AuditTrail& audit() const { return audit_trail_; }

 private:
  const std::unique_ptr<runtime::Backend> backend_;
  const language::PolicyStore policies_;
  SessionRegistry sessions_;
  ImageProvisioner images_;  // uses backend_, declared before it
  const SecretMask secrets_;
  const std::unique_ptr<AuditLog> audit_;  // null without --audit-log
  const AuditTrail audit_trail_;           // over audit_ and secrets_, declared after them
  Shares shares_;
};

}  // namespace paddock::app
