#include "cli/audit_opener.h"

#include <memory>

#include "app/audit_log.h"
#include "app/secret_mask.h"

namespace paddock::cli {

core::Result<app::AuditRecorder> open_audit_log(const std::string& path,
                                                const std::vector<std::string>& masked) {
  auto opened = app::AuditLog::open(path);
  if (!opened) return opened.error();
  std::shared_ptr<app::AuditLog> log = std::move(*opened);
  // A run's line holds no value a mask would find (the code is hashed, and a run passes no
  // variable of paddock's own environment through): `masked` is empty for it. Brokered secrets
  // never enter a sandbox, so no line can hold one.
  auto mask = std::make_shared<const app::SecretMask>(masked);
  return app::AuditRecorder(
      [log, mask](const app::AuditRecord& record) { log->record(record, *mask); });
}

}  // namespace paddock::cli
