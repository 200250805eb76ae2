// restart_session: a fresh interpreter in a live session, on purpose (the state is reset; the
// files in /work stay).

#include "app/live_session.h"
#include "app/services.h"
#include "mcp/content.h"
#include "mcp/interpreter_content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class RestartSession final : public Tool {
 public:
  std::string name() const override { return "restart_session"; }
  json definition() const override {
    json output = {{"type", "object"},
                   {"properties", interpreter_schema_properties()},
                   {"required", {"session_id", "live"}}};
    output["properties"]["session_id"] = {{"type", "string"}};
    return {
        {"name", name()},
        {"title", "Restart a session's interpreter"},
        {"description", "Restarts a live session's interpreter: variables are lost, files stay."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"session_id", session_id_property()}}},
          {"required", {"session_id"}},
          {"additionalProperties", false}}},
        {"outputSchema", std::move(output)},
        {"annotations", annotations("Restart a session's interpreter", false, true, true)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    auto lease = context.services.registry.acquire(arguments["session_id"].get<std::string>());
    if (!lease) return tool_error(lease.error());
    app::SessionEntry& session = **lease;
    auto run = session.lock_run();
    if (!run.kernel()) {
      return tool_error("session " + session.id() + " is not live (" + run.not_live() +
                        "), so it has no interpreter to restart");
    }
    if (auto restarted = run.kernel()->restart(); !restarted) {
      return tool_error("session " + session.id() + ": " +
                        context.services.secrets.apply(restarted.error().message));
    }
    ToolResult result;
    result.content.push_back(text_block("session " + session.id() + ": a fresh interpreter; " +
                                        app::interpreter_line(session)));
    result.structured = interpreter_json(session);
    result.structured["session_id"] = session.id();
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_restart_session() {
  return std::make_unique<RestartSession>();
}

}  // namespace paddock::mcp
