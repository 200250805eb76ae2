// close_session: kill a session's sandbox and drop its files, on disk too unless asked to keep
// them.

#include "app/kept_sessions.h"
#include "app/server_state.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class CloseSession final : public Tool {
 public:
  std::string name() const override { return "close_session"; }
  json definition() const override {
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
    app::ServerState& state = context.state;
    std::string id = arguments["session_id"].get<std::string>();
    bool keep = arguments.value("keep", false);
    std::string said = "closed";
    if (auto open = state.sessions().find(id); open) {
      id = (*open)->id;
      state.sessions().close(id);
      std::lock_guard lock((*open)->run_mutex);
      if ((*open)->kept && !keep) {
        if (auto removed = state.state_dir()->remove(*(*open)->kept); !removed) {
          return tool_error("session " + id +
                            " closed, but its files on disk could not be "
                            "removed: " +
                            removed.error().message);
        }
        (*open)->kept.reset();
      }
      if (keep && (*open)->kept) said = "closed; its files stay on disk";
    } else if (auto kept = app::closed_kept_session(state, id); kept) {
      id = (*kept)->info().id;
      if (keep) return tool_error("session " + id + " is not open; its files are on disk already");
      if (auto removed = state.state_dir()->remove(**kept); !removed) {
        return tool_error(removed.error());
      }
      said = "removed from disk";
    } else if (kept.error().code != ENOENT) {
      return tool_error(kept.error());
    } else {
      return tool_error("no session '" + id + "' (already closed, expired, or never existed)");
    }
    ToolResult result;
    result.content.push_back(text_block("session " + id + " " + said));
    result.structured = {{"session_id", id}, {"closed", true}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_close_session() {
  return std::make_unique<CloseSession>();
}

}  // namespace paddock::mcp
