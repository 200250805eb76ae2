#include "app/session_export.h"

#include <unistd.h>

#include "app/audit_log.h"
#include "app/kept_sessions.h"
#include "state/state_names.h"
#include "state/workspace_archive.h"

namespace paddock::app {
namespace {

AuditRecord export_record(const std::string& tool, const std::string& id,
                          const runtime::Backend& backend, const core::Status& done,
                          const core::Result<TransferReport>& written) {
  AuditRecord record;
  record.tool = tool;
  record.session = id;
  record.backend = backend.name();
  record.outcome = done ? "done" : "error";
  if (!done) record.error = done.error().message;
  if (written) {
    HostFileRecord file;
    file.action = "export";
    file.host_path = written->host_dir;
    file.bytes = written->bytes;
    file.sha256 = written->sha256;
    record.host_files.push_back(std::move(file));
  }
  return record;
}

}  // namespace

core::Result<ExportedSession> SessionExporter::write_archive(const ExportRequest& request,
                                                             const std::string& tool) const {
  if (!request.snapshot.empty()) {
    if (auto valid = state::check_state_name(request.snapshot, "snapshot"); !valid) {
      return valid.error();
    }
  }
  core::Result<TransferReport> written = core::Error{EINVAL, ""};
  ExportedSession exported;
  auto done =
      kept_.with_workspace(request.session, [&](state::SavedWorkspace& workspace) -> core::Status {
        exported.id = workspace.info().id;
        auto files = workspace.files(request.snapshot);
        if (!files) return files.error();
        written = write_into_share(
            shares_, request.host_path, request.overwrite,
            [&](int out, const runtime::CopyProgress& progress) -> core::Result<std::uint64_t> {
              auto stats = state::export_tree(files->get(), out);
              if (!stats) return stats.error();
              exported.files = stats->files;
              off_t size = lseek(out, 0, SEEK_CUR);
              if (size < 0) return core::system_error("measuring the archive");
              progress(static_cast<std::uint64_t>(size));
              return static_cast<std::uint64_t>(size);
            });
        return written ? core::Status{} : core::Status{written.error()};
      });
  audit_.record(export_record(tool, exported.id, backend_, done, written));
  if (!done) return done.error();
  exported.written = std::move(*written);
  return exported;
}

}  // namespace paddock::app
