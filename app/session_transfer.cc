#include "app/session_transfer.h"

#include <chrono>

#include "app/kept_sessions.h"

namespace paddock::app {

core::Result<TransferReport> SessionTransfers::upload(const std::string& session_id,
                                                      const std::string& host_path,
                                                      const std::string& path,
                                                      bool recursive) const {
  return in_session(session_id, "upload_file", "upload", host_path, [&](runtime::Session& session) {
    return upload_to_session(session, shares_, host_path, path, recursive, caps_);
  });
}

core::Result<TransferReport> SessionTransfers::download(const std::string& session_id,
                                                        const std::string& path,
                                                        const std::string& host_path,
                                                        bool overwrite) const {
  return in_session(
      session_id, "download_file", "download", host_path, [&](runtime::Session& session) {
        return download_from_session(session, shares_, path, host_path, overwrite, caps_);
      });
}

core::Result<TransferReport> SessionTransfers::in_session(
    const std::string& session_id, const std::string& tool, const std::string& action,
    const std::string& host_path, const TransferOperation& operation) const {
  auto lease = sessions_.acquire(session_id);
  if (!lease) return lease.error();
  auto started = std::chrono::steady_clock::now();
  auto report = operation((*lease)->session());
  // What an upload wrote is kept on disk before the call returns, as a call's files are.
  if (report && tool == "upload_file") {
    if (std::string not_kept = keep_session_files(**lease); !not_kept.empty()) {
      return core::Error{EIO, not_kept};
    }
  }
  AuditRecord record;
  record.tool = tool;
  record.session = session_id;
  record.language = (*lease)->policy().name;
  record.backend = backend_.name();
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
    audit_.record(record);
    return report.error();
  }
  record.outcome = "done";
  file.host_path = report->host_dir;
  file.session_path = "/work/" + report->session_path;
  file.bytes = report->bytes;
  file.files = report->files;
  file.sha256 = report->sha256;
  record.host_files.push_back(std::move(file));
  audit_.record(record);
  return report;
}

}  // namespace paddock::app
