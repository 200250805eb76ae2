// read_file: a file from a session's work directory, as the content type that suits it.

#include "core/mime_types.h"
#include "mcp/content.h"
#include "mcp/session_files.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class ReadFile final : public Tool {
 public:
  std::string name() const override { return "read_file"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Read a file from a session"},
            {"description",
             "Reads a file of a session's /work: text as text, images as images, other binary "
             "as a resource; over 1 MiB a resource link."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative to /work, e.g. outputs/result.csv.")}}},
              {"required", {"session_id", "path"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"path", {{"type", "string"}}},
                {"size", {{"type", "integer"}}},
                {"mime_type", {{"type", "string"}}},
                {"delivery",
                 {{"type", "string"}, {"enum", {"text", "image", "resource", "resource_link"}}}}}},
              {"required", {"path", "size", "mime_type", "delivery"}}}},
            {"annotations", annotations("Read a file", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string id = arguments["session_id"].get<std::string>();
    auto lease = context.state.sessions().acquire(id);
    if (!lease) return tool_error(lease.error().message);
    std::string path = arguments["path"].get<std::string>();
    auto file = (*lease)->session->read_file(path, kInlineFileBytes);
    if (!file) return tool_error(file.error().message);
    // A program may have written a passed-through secret to a file: it is masked here too.
    bool cut = file->data.size() < file->size;
    auto shown = client_view(context.state.secrets(), std::move(file->data), cut);
    if (!shown) return tool_error(path + " " + std::string(kWithheld));
    file->data = std::move(*shown);
    std::string delivery;
    ToolResult result;
    result.content.push_back(file_content_block(id, path, *file, cut, &delivery));
    result.structured = {{"path", path},
                         {"size", file->size},
                         {"mime_type", mime_type_for(path, file->data, cut)},
                         {"delivery", delivery}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_read_file() {
  return std::make_unique<ReadFile>();
}

}  // namespace paddock::mcp
