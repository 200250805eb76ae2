#pragma once

// A kept session's files (now, or a snapshot's) as a .tar.zst written into a read-write share,
// as a download is written (app/host_transfer.h), with its audit line. export_session
// (mcp/tools/) only turns JSON into an ExportRequest and the result into content;
// create_session {from_archive} reads such an archive back (app/session_service.h).

#include <cstdint>
#include <string>

#include "app/audit_trail.h"
#include "app/host_transfer.h"
#include "app/kept_sessions.h"
#include "app/shares.h"
#include "core/result.h"

namespace paddock::app {

struct ExportRequest {
  std::string session;   // id or name
  std::string snapshot;  // empty: the files as they are now
  std::string host_path;
  bool overwrite = false;
};

struct ExportedSession {
  std::string id;
  TransferReport written;
  std::uint64_t files = 0;  // regular files in the archive, each hard link included
};

class SessionExporter {
 public:
  SessionExporter(const KeptSessions& kept, const Shares& shares, const runtime::Backend& backend,
                  const AuditTrail& audit)
      : kept_(kept), shares_(shares), backend_(backend), audit_(audit) {}

  // `tool` names the caller in the audit log. A snapshot name that is not one is refused before
  // anything is looked up or recorded.
  core::Result<ExportedSession> write_archive(const ExportRequest& request,
                                              const std::string& tool) const;

 private:
  const KeptSessions& kept_;
  const Shares& shares_;
  const runtime::Backend& backend_;  // named in the audit line
  const AuditTrail& audit_;
};

}  // namespace paddock::app
