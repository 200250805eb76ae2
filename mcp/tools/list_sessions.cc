// list_sessions: the sessions this server holds.

#include "core/units.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "services/server_state.h"

namespace paddock::mcp {
namespace {

class ListSessions final : public Tool {
 public:
  std::string name() const override { return "list_sessions"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "List sessions"},
            {"description", "Lists open sessions: language, age, idle time."},
            {"inputSchema",
             {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}},
            {"outputSchema", json::parse(R"({
              "type": "object",
              "properties": {"sessions": {"type": "array", "items": {"type": "object",
                "properties": {"session_id": {"type": "string"}, "language": {"type": "string"},
                  "created_at": {"type": "string"}, "idle_seconds": {"type": "number"},
                  "ttl_seconds": {"type": "number"}, "runs": {"type": "integer"}},
                "required": ["session_id", "language"]}}},
              "required": ["sessions"]})")},
            {"annotations", annotations("List sessions", true, true)}};
  }
  ToolResult call(const json& /*arguments*/, ToolContext& context) override {
    json sessions = json::array();
    std::string text;
    for (const auto& entry : context.state.sessions().list()) {
      double idle = static_cast<double>(static_cast<long long>(entry->idle_seconds() * 10)) / 10;
      sessions.push_back({{"session_id", entry->id},
                          {"language", entry->policy->name},
                          {"created_at", entry->created_at_utc()},
                          {"idle_seconds", idle},
                          {"ttl_seconds", entry->ttl_seconds},
                          {"runs", entry->runs.load()}});
      // Whole units for people; idle_seconds above keeps the tenths for programs.
      text += entry->id + " " + entry->policy->name + ", idle " + format_duration(idle) + "\n";
    }
    ToolResult result;
    result.content.push_back(text_block(sessions.empty() ? "no open sessions" : text));
    result.structured = {{"sessions", std::move(sessions)}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_list_sessions() {
  return std::make_unique<ListSessions>();
}

}  // namespace paddock::mcp
