// export_session: a kept session's files (now, or a snapshot's) as a .tar.zst written into a
// read-write share, as download_file writes a file; create_session {from_archive} reads one.

#include "app/session_export.h"
#include "core/units.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

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
    app::ExportRequest request;
    request.session = arguments["session_id"].get<std::string>();
    request.snapshot = arguments.value("snapshot", "");
    request.host_path = arguments["host_path"].get<std::string>();
    request.overwrite = arguments.value("overwrite", false);
    auto exported = context.services.exporter.write_archive(request, name());
    if (!exported) return tool_error(exported.error());
    const app::TransferReport& written = exported->written;
    ToolResult result;
    result.content.push_back(text_block(
        "session " + exported->id +
        (request.snapshot.empty() ? "" : " (snapshot '" + request.snapshot + "')") +
        " exported to " + written.host_path + ": " + std::to_string(exported->files) + " files, " +
        core::format_size(written.bytes) + " compressed, " + written.sha256));
    result.structured = {{"host_path", written.host_path},
                         {"bytes", written.bytes},
                         {"files", exported->files},
                         {"sha256", written.sha256}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_export_session() {
  return std::make_unique<ExportSession>();
}

}  // namespace paddock::mcp
