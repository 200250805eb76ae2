#pragma once

// A transfer between a share and a session (host_transfer.h) as a caller asks for it: in the
// session it names, held for the transfer's length, with one audit line for every attempt
// (refused ones too, with the host path as given).

#include <functional>
#include <string>

#include "app/audit_trail.h"
#include "app/host_transfer.h"
#include "app/server_config.h"
#include "app/session_registry.h"
#include "app/shares.h"
#include "core/result.h"
#include "runtime/session.h"

namespace paddock::app {

using TransferOperation = std::function<core::Result<TransferReport>(runtime::Session& session)>;

// upload_file and download_file: between the shares and the open sessions, within the
// server's caps, each attempt written to the audit log.
class SessionTransfers {
 public:
  SessionTransfers(SessionRegistry& sessions, const Shares& shares, const TransferCaps& caps,
                   const runtime::Backend& backend, const AuditTrail& audit)
      : sessions_(sessions), shares_(shares), caps_(caps), backend_(backend), audit_(audit) {}

  // A host file or folder (`recursive`) into the session's /work, at `path` (default: its name).
  core::Result<TransferReport> upload(const std::string& session_id, const std::string& host_path,
                                      const std::string& path, bool recursive) const;
  // A session's file to `host_path` in a read-write share.
  core::Result<TransferReport> download(const std::string& session_id, const std::string& path,
                                        const std::string& host_path, bool overwrite) const;

 private:
  // Runs `operation` in the session `session_id`; `tool` names the caller in the audit log,
  // `action` is "upload" or "download", `host_path` the host path as the caller gave it.
  core::Result<TransferReport> in_session(const std::string& session_id, const std::string& tool,
                                          const std::string& action, const std::string& host_path,
                                          const TransferOperation& operation) const;

  SessionRegistry& sessions_;
  const Shares& shares_;
  const TransferCaps& caps_;
  const runtime::Backend& backend_;  // named in the audit line
  const AuditTrail& audit_;
};

}  // namespace paddock::app
