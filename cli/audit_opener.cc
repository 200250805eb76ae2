#include "cli/audit_opener.h"

#include <memory>

#include "app/audit_log.h"
#include "app/secret_mask.h"

namespace paddock::cli {

core::Result<app::AuditRecorder> open_audit_log(const std::string& path) {
  auto opened = app::AuditLog::open(path);
  if (!opened) return opened.error();
  std::shared_ptr<app::AuditLog> log = std::move(*opened);
  // A run's line holds no value a mask would find: the code is hashed, and a run passes no
  // variable of paddock's own environment through (brokered secrets never enter the sandbox).
  auto mask = std::make_shared<const app::SecretMask>(std::vector<std::string>{});
  return app::AuditRecorder(
      [log, mask](const app::AuditRecord& record) { log->record(record, *mask); });
}

}  // namespace paddock::cli
