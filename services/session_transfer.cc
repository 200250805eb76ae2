#include "services/session_transfer.h"

#include <chrono>

namespace paddock::mcp {

Result<TransferReport> transfer_in_session(Services& services, const std::string& session_id,
                                           const std::string& tool, const std::string& action,
                                           const std::string& host_path,
                                           const TransferOperation& operation) {
  auto lease = services.sessions().acquire(session_id);
  if (!lease) return lease.error();
  auto started = std::chrono::steady_clock::now();
  auto report = operation(*(*lease)->session);
  AuditRecord record;
  record.tool = tool;
  record.session = session_id;
  record.language = (*lease)->policy->name;
  record.backend = services.backend().name();
  record.limits = (*lease)->limits;
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

}  // namespace paddock::mcp
