#include "app/resources.h"

#include <unistd.h>

namespace paddock::app {

Resources::Resources(const ServiceSettings& settings, std::unique_ptr<runtime::Backend> backend,
                     language::PolicyStore policies, std::unique_ptr<AuditLog> audit, Shares shares)
    : backend_(std::move(backend)),
      policies_(std::move(policies)),
      sessions_(settings.max_sessions, settings.max_session_idle_seconds),
      images_(*backend_, settings.pull_missing_images),
      secrets_(settings.pass_through_env),
      audit_(std::move(audit)),
      audit_trail_(audit_.get(), secrets_),
      shares_(std::move(shares)) {
  if (settings.allow_preview) {
    net::preview::PreviewLimits limits;
    limits.previews = settings.max_previews;
    sessions_.set_previews(std::make_unique<net::preview::PreviewForwarder>(
        geteuid(), settings.preview_ports, limits));
  }
}

}  // namespace paddock::app
