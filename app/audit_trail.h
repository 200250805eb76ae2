#pragma once

// Where a service writes its audit lines: the server's audit log (none without --audit-log),
// every string masked by the server's secrets on its way in. Services hold it by reference, so
// that none needs the whole server to write one line.

#include "app/audit_log.h"
#include "app/secret_mask.h"

namespace paddock::app {

class AuditTrail {
 public:
  AuditTrail(AuditLog* log, const SecretMask& secrets) : log_(log), secrets_(secrets) {}

  // Appends to the audit log, when there is one.
  void record(const AuditRecord& record) const {
    if (log_ != nullptr) log_->record(record, secrets_);
  }

 private:
  AuditLog* const log_;  // null without --audit-log
  const SecretMask& secrets_;
};

}  // namespace paddock::app
