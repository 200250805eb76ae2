// snapshot_session and diff_session: a kept session's workspace saved by name, and what changed
// since its start or a snapshot.

#include "app/session_snapshots.h"
#include "core/units.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class SnapshotSession final : public Tool {
 public:
  std::string name() const override { return "snapshot_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Snapshot a session"},
            {"description", "Keeps a session's files and libraries as they are now, as name."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"name", {{"type", "string"}, {"maxLength", 64}}}}},
              {"required", {"session_id", "name"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", {{"type", "string"}}},
                {"snapshot", {{"type", "string"}}},
                {"files", {{"type", "integer"}}},
                {"bytes", {{"type", "integer"}}}}},
              {"required", {"session_id", "snapshot"}}}},
            {"annotations", annotations("Snapshot a session", false, false)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    auto taken = context.services.snapshots.take(arguments["session_id"].get<std::string>(),
                                                 arguments["name"].get<std::string>(), "name");
    if (!taken) return tool_error(taken.error());
    ToolResult result;
    result.content.push_back(text_block("snapshot '" + taken->snapshot + "' of session " +
                                        taken->session_id + ": " + std::to_string(taken->files) +
                                        " entries, " + core::format_size(taken->bytes)));
    result.structured = {{"session_id", taken->session_id},
                         {"snapshot", taken->snapshot},
                         {"files", taken->files},
                         {"bytes", taken->bytes}};
    return result;
  }
};

// At most this many changes are listed in the text; the structured result has them all.
constexpr std::size_t kDiffLines = 40;

const char* change_sign(app::SessionChange::Change change) {
  switch (change) {
    case app::SessionChange::Change::kAdded:
      return "+";
    case app::SessionChange::Change::kChanged:
      return "~";
    case app::SessionChange::Change::kDeleted:
      return "-";
  }
  return "?";
}

const char* change_name(app::SessionChange::Change change) {
  switch (change) {
    case app::SessionChange::Change::kAdded:
      return "added";
    case app::SessionChange::Change::kChanged:
      return "changed";
    case app::SessionChange::Change::kDeleted:
      return "deleted";
  }
  return "?";
}

class DiffSession final : public Tool {
 public:
  std::string name() const override { return "diff_session"; }
  json definition() const override {
    return {
        {"name", name()},
        {"title", "What changed in a session"},
        {"description",
         "Files added (+), changed (~), deleted (-) since the session began, or snapshot "
         "since."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"session_id", session_id_property()}, {"since", {{"type", "string"}}}}},
          {"required", {"session_id"}},
          {"additionalProperties", false}}},
        {"outputSchema", json::parse(R"({"type": "object", "properties": {
                "session_id": {"type": "string"}, "since": {"type": "string"},
                "changes": {"type": "array", "items": {"type": "object", "properties": {
                  "path": {"type": "string"}, "change": {"type": "string"},
                  "type": {"type": "string"}, "size": {"type": "integer"},
                  "before_size": {"type": "integer"}}}}},
                "required": ["session_id", "changes"]})")},
        {"annotations", annotations("What changed in a session", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string since = arguments.value("since", "");
    auto found = context.services.snapshots.changes(arguments["session_id"].get<std::string>(),
                                                    since, "since");
    if (!found) return tool_error(found.error());
    const std::string& id = found->session_id;
    const std::vector<app::SessionChange>& changes = found->changes;
    json listed = json::array();
    std::string text = std::to_string(changes.size()) + " change" +
                       (changes.size() == 1 ? "" : "s") + " in session " + id + " since " +
                       (since.empty() ? "it started" : "snapshot '" + since + "'") + "\n";
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const auto& change = changes[i];
      const char* type = change.type == core::TreeEntryType::kDirectory ? "directory"
                         : change.type == core::TreeEntryType::kSymlink ? "symlink"
                                                                        : "file";
      json item = {{"path", change.path},
                   {"change", change_name(change.change)},
                   {"type", type},
                   {"size", change.size}};
      if (change.change == app::SessionChange::Change::kChanged) {
        item["before_size"] = change.before_size;
      }
      listed.push_back(std::move(item));
      if (i < kDiffLines) {
        text += std::string(change_sign(change.change)) + " " + change.path;
        if (change.type == core::TreeEntryType::kDirectory) {
          text += "/";
        } else if (change.change == app::SessionChange::Change::kChanged) {
          text += " (" + core::format_size(change.before_size) + " -> " +
                  core::format_size(change.size) + ")";
        } else {
          text += " (" + core::format_size(change.size) + ")";
        }
        text += "\n";
      } else if (i == kDiffLines) {
        text += "... and " + std::to_string(changes.size() - kDiffLines) +
                " more (the structured result lists them all)\n";
      }
    }
    ToolResult result;
    result.content.push_back(text_block(text));
    result.structured = {{"session_id", id}, {"changes", std::move(listed)}};
    if (!since.empty()) result.structured["since"] = since;
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_snapshot_session() {
  return std::make_unique<SnapshotSession>();
}

std::unique_ptr<Tool> make_diff_session() {
  return std::make_unique<DiffSession>();
}

}  // namespace paddock::mcp
