#include "mcp/transfer_tool.h"

#include <chrono>

#include "core/text.h"
#include "core/units.h"
#include "mcp/content.h"
#include "mcp/server_state.h"

namespace paddock::mcp {

json transfer_output_schema() {
  return {{"type", "object"},
          {"properties",
           {{"path", {{"type", "string"}, {"description", "Inside the session's /work."}}},
            {"host_path", {{"type", "string"}, {"description", "SHARE/path on the host."}}},
            {"size", {{"type", "integer"}, {"description", "Bytes copied."}}},
            {"files", {{"type", "integer"}}},
            {"sha256",
             {{"type", "string"},
              {"description",
               "The file's digest; for a folder, the digest of its manifest (sha256sum's "
               "lines, sorted by path)."}}},
            {"skipped",
             {{"type", "integer"},
              {"description", "Symlinks and special files in a folder, never copied."}}}}},
          {"required", {"path", "host_path", "size", "files", "sha256"}}};
}

ToolResult run_transfer(ToolContext& context, const json& arguments, const std::string& tool,
                        const std::string& action, const std::string& host_path,
                        const TransferOperation& operation) {
  ServerState& state = context.state;
  std::string id = arguments["session_id"].get<std::string>();
  auto lease = state.sessions.acquire(id);
  if (!lease) return tool_error(lease.error().message);
  auto started = std::chrono::steady_clock::now();
  auto report = operation(*(*lease)->session);
  AuditRecord record;
  record.tool = tool;
  record.session = id;
  record.language = (*lease)->policy->name;
  record.backend = state.backend->name();
  record.limits = (*lease)->limits;
  record.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
  if (!report) {
    record.outcome = "refused";
    record.error = report.error().message;
    HostFileRecord file;
    file.action = action;
    file.host_path = host_path;
    record.host_files.push_back(std::move(file));
    state.record(record);
    return tool_error(report.error().message);
  }
  record.outcome = "done";
  HostFileRecord file;
  file.action = action;
  file.host_path = report->host_dir;
  file.session_path = "/work/" + report->session_path;
  file.bytes = report->bytes;
  file.files = report->files;
  file.sha256 = report->sha256;
  record.host_files.push_back(std::move(file));
  state.record(record);
  std::string what = report->folder ? "folder " + report->host_path + " (" +
                                          counted(report->files, "entry", "entries") + ", " +
                                          format_size(report->bytes) + ")"
                                    : report->host_path + " (" + format_size(report->bytes) + ")";
  std::string text = action == "upload"
                         ? "uploaded " + what + " to /work/" + report->session_path
                         : "downloaded /work/" + report->session_path + " (" +
                               format_size(report->bytes) + ") to " + report->host_path;
  text += "; " + report->sha256;
  if (report->skipped > 0) {
    text += "; skipped " +
            counted(report->skipped, "symlink, special file or empty folder",
                    "symlinks, special files or empty folders") +
            " (never copied)";
  }
  ToolResult result;
  result.content.push_back(text_block(text));
  result.structured = {{"path", report->session_path}, {"host_path", report->host_path},
                       {"size", report->bytes},        {"files", report->files},
                       {"sha256", report->sha256},     {"skipped", report->skipped}};
  return result;
}

}  // namespace paddock::mcp
