// download_file: a file from a session's /work into a read-write share the user gave, copied
// directly by the server.

#include "app/services.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "mcp/transfer_tool.h"

namespace paddock::mcp {
namespace {

class DownloadFile final : public Tool {
 public:
  std::string name() const override { return "download_file"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Download a session file to the host"},
            {"description",
             "Copies a file of a session's /work into a read-write share, not through this "
             "conversation; makes folders, follows no symlink."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative to /work.")},
                {"host_path", path_property("SHARE/path.")},
                {"overwrite", {{"type", "boolean"}, {"default", false}}}}},
              {"required", {"session_id", "path", "host_path"}},
              {"additionalProperties", false}}},
            {"outputSchema", transfer_output_schema()},
            {"annotations", annotations("Download a session file", false, true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string path = arguments["path"].get<std::string>();
    std::string host_path = arguments["host_path"].get<std::string>();
    bool overwrite = arguments.value("overwrite", false);
    return transfer_result(
        context.services.transfers.download(arguments["session_id"].get<std::string>(), path,
                                            host_path, overwrite),
        "download");
  }
};

}  // namespace

std::unique_ptr<Tool> make_download_file() {
  return std::make_unique<DownloadFile>();
}

}  // namespace paddock::mcp
