#include "app/session_transfer.h"

#include <chrono>

#include "app/kept_sessions.h"

namespace paddock::app {

Result<TransferReport> transfer_in_session(Services& services, const std::string& session_id,
                                           const std::string& tool, const std::string& action,
                                           const std::string& host_path,
                                           const TransferOperation& operation) {
  auto lease = services.sessions().acquire(session_id);
  if (!lease) return lease.error();
  auto started = std::chrono::steady_clock::now();
  auto report = operation((*lease)->session());
  // What an upload wrote is kept on disk before the call returns, as a call's files are.
  if (report && tool == "upload_file") {
    if (std::string not_kept = keep_session_files(**lease); !not_kept.empty()) {
      return Error{EIO, not_kept};
    }
  }
  AuditRecord record;
  record.tool = tool;
  record.session = session_id;
  record.language = (*lease)->policy().name;
  record.backend = services.backend().name();
  record.limits = (*lease)->limits();
  record.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
  HostFileRecord file;
  file.action = action;
  if (!report) {
    record.outcome = "refused";
    record.error = report.error().message;
    file.host_path = host_path;
    record.host_files.push_back(std::move(file));
    services.record(record);
    return report.error();
  }
  record.outcome = "done";
  file.host_path = report->host_dir;
  file.session_path = "/work/" + report->session_path;
  file.bytes = report->bytes;
  file.files = report->files;
  file.sha256 = report->sha256;
  record.host_files.push_back(std::move(file));
  services.record(record);
  return report;
}

}  // namespace paddock::app
