#include "mcp/transfer_tool.h"

#include "core/text.h"
#include "core/units.h"
#include "mcp/content.h"

namespace paddock::mcp {

json transfer_output_schema() {
  return {{"type", "object"},
          {"properties",
           {{"path", {{"type", "string"}}},
            {"host_path", {{"type", "string"}}},
            {"size", {{"type", "integer"}}},
            {"files", {{"type", "integer"}}},
            // A folder's is the digest of its manifest: sha256sum's lines, sorted by path.
            {"sha256", {{"type", "string"}}},
            {"skipped", {{"type", "integer"}}}}},
          {"required", {"path", "host_path", "size", "files", "sha256"}}};
}

ToolResult transfer_result(const core::Result<app::TransferReport>& report,
                           const std::string& action) {
  if (!report) return tool_error(report.error());
  std::string what = report->folder
                         ? "folder " + report->host_path + " (" +
                               core::counted(report->files, "entry", "entries") + ", " +
                               core::format_size(report->bytes) + ")"
                         : report->host_path + " (" + core::format_size(report->bytes) + ")";
  std::string text = action == "upload"
                         ? "uploaded " + what + " to /work/" + report->session_path
                         : "downloaded /work/" + report->session_path + " (" +
                               core::format_size(report->bytes) + ") to " + report->host_path;
  text += "; " + report->sha256;
  if (report->skipped > 0) {
    text += "; skipped " +
            core::counted(report->skipped, "symlink, special file or empty folder",
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
