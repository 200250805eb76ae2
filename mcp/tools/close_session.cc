// close_session: kill a session's sandbox and drop its files.

#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "services/server_state.h"

namespace paddock::mcp {
namespace {

class CloseSession final : public Tool {
 public:
  std::string name() const override { return "close_session"; }
  json definition() const override {
    return {
        {"name", name()},
        {"title", "Close a session"},
        {"description", "Closes a session, killing its processes and deleting its files."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"session_id", session_id_property()}}},
          {"required", {"session_id"}},
          {"additionalProperties", false}}},
        {"outputSchema",
         {{"type", "object"},
          {"properties", {{"session_id", {{"type", "string"}}}, {"closed", {{"type", "boolean"}}}}},
          {"required", {"session_id", "closed"}}}},
        {"annotations", annotations("Close a session", false, true, /*destructive=*/true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string id = arguments["session_id"].get<std::string>();
    if (!context.state.sessions().close(id)) {
      return tool_error("no session '" + id + "' (already closed, expired, or never existed)");
    }
    ToolResult result;
    result.content.push_back(text_block("session " + id + " closed"));
    result.structured = {{"session_id", id}, {"closed", true}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_close_session() {
  return std::make_unique<CloseSession>();
}

}  // namespace paddock::mcp
