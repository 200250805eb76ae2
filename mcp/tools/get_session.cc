// get_session: one session's state (the E2B server's get_sandbox_status): language, age, idle
// time, disk used, processes running and limits.

#include <chrono>

#include "app/live_session.h"
#include "app/services.h"
#include "core/text.h"
#include "core/units.h"
#include "mcp/content.h"
#include "mcp/interpreter_content.h"
#include "mcp/language_catalog.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

double tenths(double seconds) {
  return static_cast<double>(static_cast<long long>(seconds * 10)) / 10;
}

// The server's pools beside the session: what waits for the next calls, and the memory budget
// it is held within (--pool-memory), so that a user sees where the server's memory goes.
json pools_json(const app::PoolsSummary& pools) {
  json waiting = json::array();
  for (const auto& holding : pools.holdings) {
    waiting.push_back({{"pool", holding.pool},
                       {"language", holding.language},
                       {"waiting", holding.waiting},
                       {"opening", holding.opening},
                       {"memory_bytes", holding.bytes},
                       {"each_bytes", holding.each}});
  }
  return {{"memory_budget_bytes", pools.budget},
          {"memory_held_bytes", pools.held},
          {"waiting", std::move(waiting)}};
}

std::string pools_line(const app::PoolsSummary& pools) {
  std::string line = "waiting for calls: " + core::format_size(pools.held) + " of " +
                     core::format_size(pools.budget) + " (--pool-memory)";
  std::string kinds;
  for (const auto& holding : pools.holdings) {
    if (holding.waiting == 0) continue;
    kinds += (kinds.empty() ? "" : ", ") + std::to_string(holding.waiting) + " " +
             holding.language + (holding.pool == "warm" ? " sandbox" : " kernel") +
             (holding.waiting == 1 ? "" : "s");
  }
  return line + (kinds.empty() ? "" : ": " + kinds);
}

json with_interpreter(json schema) {
  schema["properties"].update(interpreter_schema_properties());
  return schema;
}

class GetSession final : public Tool {
 public:
  std::string name() const override { return "get_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Get a session's state"},
            {"description",
             "A session's age, idle time, disk use, processes, limits, interpreter, whether "
             "frozen. Asking is not use."},
            {"inputSchema",
             {{"type", "object"},
              {"properties", {{"session_id", session_id_property()}}},
              {"required", {"session_id"}},
              {"additionalProperties", false}}},
            {"outputSchema", with_interpreter(json::parse(R"({
              "type": "object",
              "properties": {
                "session_id": {"type": "string"},
                "language": {"type": "string"},
                "created_at": {"type": "string"},
                "age_seconds": {"type": "number"},
                "idle_seconds": {"type": "number"},
                "ttl_seconds": {"type": "number"},
                "runs": {"type": "integer"},
                "disk_used_bytes": {"type": "integer"},
                "processes": {"type": "integer"},
                "frozen": {"type": "boolean"},
                "exposed": {"type": "array", "items": {"type": "object"}},
                "backend": {"type": "string"},
                "mounts": {"type": "array", "items": {"type": "object", "properties": {
                  "share": {"type": "string"}, "path": {"type": "string"},
                  "writable": {"type": "boolean"}}}},
                "shares": {"type": "array", "items": {"type": "object", "properties": {
                  "name": {"type": "string"}, "writable": {"type": "boolean"}}}},
                "pools": {"type": "object"},
                "transfer_limits": {"type": "object", "properties": {
                  "max_bytes": {"type": "integer"}, "max_files": {"type": "integer"}}},
                "limits": {"type": "object", "properties": {
                  "memory_bytes": {"type": "integer"}, "pids": {"type": "integer"},
                  "cpus": {"type": ["number", "null"]}, "timeout_seconds": {"type": "number"},
                  "output_bytes": {"type": "integer"}, "work_dir_bytes": {"type": "integer"},
                  "network": {"type": "string"}}}},
              "required": ["session_id", "language", "created_at", "age_seconds", "idle_seconds",
                           "ttl_seconds", "runs", "disk_used_bytes", "processes", "frozen",
                           "limits"]})"))},
            {"annotations", annotations("Get a session's state", true, true)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string id = arguments["session_id"].get<std::string>();
    auto entry = context.services.registry.find(id);
    if (!entry) return tool_error(entry.error());
    const app::SessionEntry& session = **entry;
    bool frozen = runtime::is_frozen(session.session());
    auto usage = session.session().usage();
    if (!usage) return tool_error("session " + id + ": " + usage.error().message);
    double age =
        std::chrono::duration<double>(std::chrono::system_clock::now() - session.created_at())
            .count();
    json limits = limits_summary(session.limits(), session.policy().run_network);
    limits["cpus"] = session.limits().cpus ? json(*session.limits().cpus) : json(nullptr);
    json structured = {{"session_id", id},
                       {"language", session.policy().name},
                       {"created_at", session.created_at_utc()},
                       {"age_seconds", tenths(age)},
                       {"idle_seconds", tenths(session.idle_seconds())},
                       {"ttl_seconds", session.ttl_seconds()},
                       {"runs", session.runs()},
                       {"disk_used_bytes", usage->disk_bytes},
                       {"processes", usage->processes},
                       {"frozen", frozen},
                       {"backend", std::string(context.services.backend.name())},
                       {"limits", std::move(limits)}};
    structured.update(interpreter_json(session));
    // The model learns here what it may name in upload_file, download_file and mounts.
    json shares = json::array();
    for (const auto& share : context.services.shares.all()) {
      shares.push_back({{"name", share->name}, {"writable", share->writable}});
    }
    json mounts = json::array();
    for (const auto& mount : session.mounts()) {
      mounts.push_back(
          {{"share", mount.share}, {"path", mount.path}, {"writable", mount.writable}});
    }
    structured["shares"] = std::move(shares);
    structured["mounts"] = std::move(mounts);
    structured["exposed"] = exposed_ports_json(session);
    app::PoolsSummary pools = context.services.pools();
    structured["pools"] = pools_json(pools);
    structured["transfer_limits"] = {
        {"max_bytes", context.services.options.transfer_caps.max_bytes},
        {"max_files", context.services.options.transfer_caps.max_files}};
    ToolResult result;
    result.content.push_back(text_block(
        "session " + id + " (" + session.policy().name + "): " + core::format_duration(age) +
        " old, idle " + core::format_duration(session.idle_seconds()) + ", " +
        std::to_string(usage->disk_bytes / 1024) + " KiB used in /work, " +
        core::counted(usage->processes, "process", "processes") +
        (frozen ? " frozen while idle (the next call thaws them), " : " running, ") +
        core::counted(session.runs(), "run", "runs") + "; " + app::interpreter_line(session) +
        "; shares: " + context.services.shares.summary() + "; " + pools_line(pools)));
    result.structured = std::move(structured);
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_get_session() {
  return std::make_unique<GetSession>();
}

}  // namespace paddock::mcp
