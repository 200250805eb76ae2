// write_file: put a file into a session's work directory.

#include "app/kept_sessions.h"
#include "core/base64.h"
#include "core/text.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class WriteFile final : public Tool {
 public:
  std::string name() const override { return "write_file"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Write a file into a session"},
            {"description",
             "Writes a file into a session's /work, making folders, replacing any file there."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative to /work.")},
                {"content", {{"type", "string"}}},
                {"encoding",
                 {{"type", "string"}, {"enum", {"utf-8", "base64"}}, {"default", "utf-8"}}}}},
              {"required", {"session_id", "path", "content"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties", {{"path", {{"type", "string"}}}, {"size", {{"type", "integer"}}}}},
              {"required", {"path", "size"}}}},
            {"annotations", annotations("Write a file", false, true, /*destructive=*/true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    auto lease = context.services.registry.acquire(arguments["session_id"].get<std::string>());
    if (!lease) return tool_error(lease.error());
    std::string path = arguments["path"].get<std::string>();
    std::string content = arguments["content"].get<std::string>();
    if (arguments.value("encoding", "utf-8") == "base64") {
      auto decoded = core::base64_decode(content);
      if (!decoded) return tool_error("content is not valid base64");
      content = std::move(*decoded);
    }
    if (auto wrote = (*lease)->session().write_file(path, content); !wrote) {
      return tool_error(wrote.error());
    }
    std::string not_kept = app::keep_session_files(**lease);
    ToolResult result;
    result.content.push_back(text_block("wrote " + core::counted(content.size(), "byte", "bytes") +
                                        " to /work/" + path));
    if (!not_kept.empty()) result.content.push_back(text_block(not_kept));
    result.structured = {{"path", path}, {"size", content.size()}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_write_file() {
  return std::make_unique<WriteFile>();
}

}  // namespace paddock::mcp
