// list_files: what a directory of a session's work directory holds.

#include <set>

#include "core/text.h"
#include "language/language_run.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kMaxEntries = 1000;
// The text's entries stop here, under a tool result's 64 KiB of text: 1000 long names would not.
constexpr std::size_t kListTextBytes = 60u << 10;

// What paddock itself keeps in /work, as paths relative to it: clutter beside the files the code
// made, so hidden unless asked for. Libraries a caller installed (.local, node_modules, ...) are
// theirs and stay listed.
std::set<std::string> own_files(const language::LanguagePolicy& policy) {
  std::set<std::string> own{
      ".paddock",  // support files (sitecustomize, Rprofile) and plots collected from a run
      ".cache",    // what tools cache in $HOME, which is /work
  };
  for (auto& file : language::language_work_files(policy)) own.insert(std::move(file));
  return own;
}

class ListFiles final : public Tool {
 public:
  std::string name() const override { return "list_files"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "List files in a session"},
            {"description",
             "Lists a folder of a session's /work (at most 1000 entries); paddock's own files "
             "only with all."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative to /work; omit for /work.")},
                {"all", {{"type", "boolean"}, {"default", false}}}}},
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
                  "required": ["name", "type", "size"]}},
                "more": {"type": "boolean"},
                "hidden": {"type": "integer"}},
              "required": ["path", "entries"]})")},
            {"annotations", annotations("List files", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    auto lease = context.services.registry.acquire(arguments["session_id"].get<std::string>());
    if (!lease) return tool_error(lease.error());
    std::string path = arguments.value("path", "");
    // "dir/" and "." name what "dir" and "" name; "/" stays absolute, and is refused.
    while (path.size() > 1 && path.ends_with('/')) path.pop_back();
    if (path == ".") path.clear();
    bool all = arguments.value("all", false);
    std::set<std::string> own = all ? std::set<std::string>{} : own_files((*lease)->policy());
    // Asked for enough that hiding paddock's own files still leaves kMaxEntries to show.
    // One more than that, to tell whether the directory holds more.
    auto entries = (*lease)->session().list_files(path, kMaxEntries + own.size() + 1);
    if (!entries) return tool_error(entries.error());
    json list = json::array();
    std::string text = "/work" + (path.empty() ? "" : "/" + path) + ":\n";
    std::vector<std::string> hidden;
    bool more = false;
    std::size_t unshown = 0;  // listed, but past the text's room
    for (const auto& entry : *entries) {
      if (own.contains(path.empty() ? entry.name : path + "/" + entry.name)) {
        hidden.push_back(entry.type == "directory" ? entry.name + "/" : entry.name);
        continue;
      }
      if (list.size() == kMaxEntries) {
        more = true;
        break;
      }
      // A program can name a file after a passed-through value as well as write it inside.
      std::string name = context.services.secrets.apply(entry.name);
      list.push_back({{"name", name}, {"type", entry.type}, {"size", entry.size}});
      std::string line =
          (entry.type == "directory" ? "  " + name + "/" : "  " + name) +
          (entry.type == "file" ? " (" + core::counted(entry.size, "byte", "bytes") + ")" : "") +
          "\n";
      if (unshown > 0 || text.size() + line.size() > kListTextBytes) {
        ++unshown;
      } else {
        text += line;
      }
    }
    if (unshown > 0 || more) {
      text +=
          "  (" +
          (unshown > 0 ? core::counted(unshown, "more entry", "more entries") + " not shown here"
                       : std::string("")) +
          (unshown > 0 && more ? ", and " : "") +
          (more ? "more than " + std::to_string(kMaxEntries) + " entries in all, only the first " +
                      std::to_string(kMaxEntries) + " by name listed"
                : "") +
          ": list a subdirectory with path, or search with code run by execute_code)\n";
    }
    if (list.empty() && hidden.empty()) text += "  (empty)\n";
    if (!hidden.empty()) {
      std::string names;
      for (const auto& name : hidden) names += (names.empty() ? "" : ", ") + name;
      text += "  (paddock's own " + names + " not shown; all: true lists them)\n";
    }
    ToolResult result;
    result.content.push_back(text_block(text));
    result.structured = {{"path", path}, {"entries", std::move(list)}, {"hidden", hidden.size()}};
    if (more) result.structured["more"] = true;
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_list_files() {
  return std::make_unique<ListFiles>();
}

}  // namespace paddock::mcp
