// list_files: what a directory of a session's work directory holds.

#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kMaxEntries = 1000;

class ListFiles final : public Tool {
 public:
  std::string name() const override { return "list_files"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "List files in a session"},
            {"description",
             "Lists a directory of a session's /work directory (the whole /work by default): "
             "name, type (file, directory, symlink, other) and size of each entry, at most "
             "1000."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative directory inside /work; empty or omitted for "
                                       "/work itself.")}}},
              {"required", {"session_id"}},
              {"additionalProperties", false}}},
            {"outputSchema", json::parse(R"({
              "type": "object",
              "properties": {
                "path": {"type": "string"},
                "entries": {"type": "array", "items": {"type": "object",
                  "properties": {"name": {"type": "string"},
                    "type": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
                    "size": {"type": "integer"}},
                  "required": ["name", "type", "size"]}}},
              "required": ["path", "entries"]})")},
            {"annotations", annotations("List files", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    auto lease = context.state.sessions.acquire(arguments["session_id"].get<std::string>());
    if (!lease) return tool_error(lease.error().message);
    std::string path = arguments.value("path", "");
    // "dir/" and "." name what "dir" and "" name; "/" stays absolute, and is refused.
    while (path.size() > 1 && path.ends_with('/')) path.pop_back();
    if (path == ".") path.clear();
    auto entries = (*lease)->session->list_files(path, kMaxEntries);
    if (!entries) return tool_error(entries.error().message);
    json list = json::array();
    std::string text = "/work" + (path.empty() ? "" : "/" + path) + ":\n";
    for (const auto& entry : *entries) {
      // A program can name a file after a passed-through value as well as write it inside.
      std::string name = context.state.secrets.apply(entry.name);
      list.push_back({{"name", name}, {"type", entry.type}, {"size", entry.size}});
      text += (entry.type == "directory" ? "  " + name + "/" : "  " + name) +
              (entry.type == "file" ? " (" + std::to_string(entry.size) + " bytes)" : "") + "\n";
    }
    if (entries->empty()) text += "  (empty)\n";
    ToolResult result;
    result.content.push_back(text_block(text));
    result.structured = {{"path", path}, {"entries", std::move(list)}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_list_files() {
  return std::make_unique<ListFiles>();
}

}  // namespace paddock::mcp
