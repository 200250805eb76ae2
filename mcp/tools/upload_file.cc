// upload_file: a file or folder from a share the user gave into a session's /work, copied
// directly by the server.

#include "app/services.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "mcp/transfer_tool.h"

namespace paddock::mcp {
namespace {

class UploadFile final : public Tool {
 public:
  std::string name() const override { return "upload_file"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Upload a host file into a session"},
            {"description",
             "Copies a file or folder (recursive) from a share the user gave into a session's "
             "/work, not through this conversation: for data of any size. Symlinks are not "
             "followed."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"host_path", path_property("SHARE/path.")},
                {"path", path_property("Where in /work (default: its name).")},
                {"recursive", {{"type", "boolean"}, {"default", false}}}}},
              {"required", {"session_id", "host_path"}},
              {"additionalProperties", false}}},
            {"outputSchema", transfer_output_schema()},
            {"annotations", annotations("Upload a host file", false, true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string host_path = arguments["host_path"].get<std::string>();
    std::string path = arguments.value("path", "");
    bool recursive = arguments.value("recursive", false);
    return transfer_result(
        context.services.transfers.upload(arguments["session_id"].get<std::string>(), host_path,
                                          path, recursive),
        "upload");
  }
};

}  // namespace

std::unique_ptr<Tool> make_upload_file() {
  return std::make_unique<UploadFile>();
}

}  // namespace paddock::mcp
