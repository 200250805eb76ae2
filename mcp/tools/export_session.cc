// export_session: a kept session's files (now, or a snapshot's) as a .tar.zst written into a
// read-write share, as download_file writes a file; create_session {from_archive} reads one.

#include <unistd.h>

#include "app/host_transfer.h"
#include "app/kept_sessions.h"
#include "core/units.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "state/state_names.h"
#include "state/workspace_archive.h"

namespace paddock::mcp {
namespace {

class ExportSession final : public Tool {
 public:
  std::string name() const override { return "export_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Export a session"},
            {"description", "A session (or snapshot) as a .tar.zst in a read-write share."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"snapshot", {{"type", "string"}}},
                {"host_path", path_property("SHARE/x.tar.zst")},
                {"overwrite", {{"type", "boolean"}, {"default", false}}}}},
              {"required", {"session_id", "host_path"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"host_path", {{"type", "string"}}},
                {"bytes", {{"type", "integer"}}},
                {"files", {{"type", "integer"}}},
                {"sha256", {{"type", "string"}}}}},
              {"required", {"host_path", "bytes"}}}},
            {"annotations", annotations("Export a session", false, false)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    app::ServerState& state = context.state;
    std::string snapshot = arguments.value("snapshot", "");
    if (!snapshot.empty()) {
      if (auto valid = state::check_state_name(snapshot, "snapshot"); !valid) {
        return tool_error(valid.error().message);
      }
    }
    std::string host_path = arguments["host_path"].get<std::string>();
    Result<app::TransferReport> written = Error{EINVAL, ""};
    state::ArchiveStats stats;
    std::string id;
    auto done = app::with_workspace(
        state, arguments["session_id"].get<std::string>(),
        [&](state::SavedWorkspace& workspace) -> Status {
          id = workspace.info().id;
          auto files = workspace.files(snapshot);
          if (!files) return files.error();
          written = app::write_into_share(
              state.shares(), host_path, arguments.value("overwrite", false),
              [&](int out, const CopyProgress& progress) -> Result<std::uint64_t> {
                auto exported = state::export_tree(files->get(), out);
                if (!exported) return exported.error();
                stats = *exported;
                off_t size = lseek(out, 0, SEEK_CUR);
                if (size < 0) return system_error("measuring the archive");
                progress(static_cast<std::uint64_t>(size));
                return static_cast<std::uint64_t>(size);
              });
          return written ? Status{} : Status{written.error()};
        });
    app::AuditRecord record;
    record.tool = name();
    record.session = id;
    record.backend = state.backend().name();
    record.outcome = done ? "done" : "error";
    if (!done) record.error = done.error().message;
    if (written) {
      app::HostFileRecord file;
      file.action = "export";
      file.host_path = written->host_dir;
      file.bytes = written->bytes;
      file.sha256 = written->sha256;
      record.host_files.push_back(std::move(file));
    }
    state.record(record);
    if (!done) return tool_error(done.error().message);
    ToolResult result;
    result.content.push_back(
        text_block("session " + id + (snapshot.empty() ? "" : " (snapshot '" + snapshot + "')") +
                   " exported to " + written->host_path + ": " + std::to_string(stats.files) +
                   " files, " + format_size(written->bytes) + " compressed, " + written->sha256));
    result.structured = {{"host_path", written->host_path},
                         {"bytes", written->bytes},
                         {"files", stats.files},
                         {"sha256", written->sha256}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_export_session() {
  return std::make_unique<ExportSession>();
}

}  // namespace paddock::mcp
