// close_session: kill a session's sandbox and drop its files, on disk too unless asked to keep
// them.

#include "app/services.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class CloseSession final : public Tool {
 public:
  explicit CloseSession(bool kept) : kept_(kept) {}
  std::string name() const override { return "close_session"; }
  // Without kept sessions (--state-dir none) there is no disk to keep a session's files on, so
  // `keep` is not offered (issue 53) and the schema refuses it.
  json definition() const override {
    json definition = full_definition();
    if (!kept_) {
      definition["description"] = "Closes a session, killing its processes and deleting its files.";
      definition["inputSchema"]["properties"].erase("keep");
    }
    return definition;
  }
  json full_definition() const {
    return {
        {"name", name()},
        {"title", "Close a session"},
        {"description",
         "Closes a session, killing its processes and deleting its files (keep: true keeps "
         "them on disk)."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"session_id", session_id_property()},
            {"keep", {{"type", "boolean"}, {"default", false}, {"description", "Reopen later."}}}}},
          {"required", {"session_id"}},
          {"additionalProperties", false}}},
        {"outputSchema",
         {{"type", "object"},
          {"properties", {{"session_id", {{"type", "string"}}}, {"closed", {{"type", "boolean"}}}}},
          {"required", {"session_id", "closed"}}}},
        {"annotations", annotations("Close a session", false, true, /*destructive=*/true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    bool keep = arguments.value("keep", false);
    auto closed = context.services.sessions.close(arguments["session_id"].get<std::string>(), keep);
    if (!closed) return tool_error(closed.error());
    const std::string& id = closed->id;
    ToolResult result;
    result.content.push_back(text_block("session " + id + " " + closed->said));
    result.structured = {{"session_id", id}, {"closed", true}};
    return result;
  }

 private:
  bool kept_;
};

}  // namespace

std::unique_ptr<Tool> make_close_session(bool kept) {
  return std::make_unique<CloseSession>(kept);
}

}  // namespace paddock::mcp
