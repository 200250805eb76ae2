// list_sessions: the sessions this server holds, and those kept on disk that it does not.

#include <set>

#include "app/services.h"
#include "core/units.h"
#include "core/utc_time.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class ListSessions final : public Tool {
 public:
  explicit ListSessions(bool keeps_sessions) : keeps_sessions_(keeps_sessions) {}
  std::string name() const override { return "list_sessions"; }
  json definition() const override {
    json definition = {
        {"name", name()},
        {"title", "List sessions"},
        {"description", keeps_sessions_
                            ? "Lists open sessions and those kept on disk by earlier servers "
                              "(execute_code reopens them by id or name)."
                            : "Lists the open sessions."},
        {"inputSchema",
         {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}},
        {"outputSchema", json::parse(R"({
              "type": "object",
              "properties": {"sessions": {"type": "array", "items": {"type": "object",
                "properties": {"session_id": {"type": "string"}, "language": {"type": "string"},
                  "created_at": {"type": "string"}, "idle_seconds": {"type": "number"},
                  "ttl_seconds": {"type": "number"}, "runs": {"type": "integer"},
                  "name": {"type": "string"}, "open": {"type": "boolean"},
                  "kept": {"type": "boolean"}, "bytes": {"type": "integer"},
                  "files": {"type": "integer"}, "last_used": {"type": "string"},
                  "state_lost": {"type": "boolean"},
                  "in_use_elsewhere": {"type": "boolean"},
                  "frozen": {"type": "boolean"},
                  "exposed": {"type": "array", "items": {"type": "object"}}},
                "required": ["session_id", "language"]}}},
              "required": ["sessions"]})")},
        {"annotations", annotations("List sessions", true, true)}};
    // Without kept sessions (--state-dir none) no session has a name, a copy on disk or a
    // past: the model is not told of fields that never come.
    if (!keeps_sessions_) {
      json& fields = definition["outputSchema"]["properties"]["sessions"]["items"]["properties"];
      for (const char* kept :
           {"name", "kept", "bytes", "files", "last_used", "state_lost", "in_use_elsewhere"}) {
        fields.erase(kept);
      }
    }
    return definition;
  }
  ToolResult call(const json& /*arguments*/, ToolContext& context) override {
    json sessions = json::array();
    std::string text;
    std::set<std::string> open_ids;
    for (const auto& entry : context.services.registry.list()) {
      open_ids.insert(entry->id());
      bool frozen = runtime::is_frozen(entry->session());
      double idle = static_cast<double>(static_cast<long long>(entry->idle_seconds() * 10)) / 10;
      json item = {{"session_id", entry->id()},
                   {"language", entry->policy().name},
                   {"created_at", entry->created_at_utc()},
                   {"idle_seconds", idle},
                   {"ttl_seconds", entry->ttl_seconds()},
                   {"runs", entry->runs()},
                   {"open", true},
                   {"frozen", frozen}};
      if (keeps_sessions_) item["kept"] = entry->kept_on_disk();
      if (!entry->name().empty()) item["name"] = entry->name();
      json exposed = exposed_ports_json(*entry);
      std::string previews;
      for (const auto& port : exposed) {
        previews += ", port " + std::to_string(port["port"].get<int>()) + " at " +
                    port["url"].get<std::string>();
      }
      if (!exposed.empty()) item["exposed"] = std::move(exposed);
      sessions.push_back(std::move(item));
      // Whole units for people; idle_seconds above keeps the tenths for programs.
      text += entry->id() + (entry->name().empty() ? "" : " (" + entry->name() + ")") + " " +
              entry->policy().name + ", open, idle " + core::format_duration(idle) +
              (frozen ? ", frozen" : "") + previews + "\n";
    }
    for (const auto& kept : context.services.kept.not_open()) {
      const state::WorkspaceInfo& info = kept.info;
      if (open_ids.contains(info.id)) continue;
      std::string last_used = core::utc_text(
          std::chrono::system_clock::time_point(std::chrono::seconds(info.last_used)));
      json item = {{"session_id", info.id},
                   {"language", info.language},
                   {"created_at", info.created_at},
                   {"open", false},
                   {"kept", true},
                   {"bytes", info.bytes},
                   {"files", info.files},
                   {"last_used", last_used},
                   {"state_lost", info.live},
                   {"in_use_elsewhere", kept.in_use}};
      if (!info.name.empty()) item["name"] = info.name;
      sessions.push_back(std::move(item));
      text += info.id + (info.name.empty() ? "" : " (" + info.name + ")") + " " + info.language +
              ", kept on disk: " + std::to_string(info.files) + " entries, " +
              core::format_size(info.bytes) + ", last used " + last_used +
              (kept.in_use ? ", open in another server"
               : info.live ? "; its interpreter's variables were lost"
                           : "") +
              "\n";
    }
    ToolResult result;
    result.content.push_back(text_block(sessions.empty() ? "no sessions" : text));
    result.structured = {{"sessions", std::move(sessions)}};
    return result;
  }

 private:
  bool keeps_sessions_;
};

}  // namespace

std::unique_ptr<Tool> make_list_sessions(bool keeps_sessions) {
  return std::make_unique<ListSessions>(keeps_sessions);
}

}  // namespace paddock::mcp
