// get_supported_languages: the languages execute_code takes.

#include "mcp/content.h"
#include "mcp/language_catalog.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class GetSupportedLanguages final : public Tool {
 public:
  std::string name() const override { return "get_supported_languages"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Supported languages"},
            {"description",
             "Lists the languages execute_code runs, "
             "with aliases and file extensions; one whose toolchain this machine lacks is "
             "marked unavailable, with why."},
            {"inputSchema",
             {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"languages", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                {"details", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
              {"required", {"languages"}}}},
            {"annotations", annotations("Supported languages", true, true)}};
  }
  ToolResult call(const json& /*arguments*/, ToolContext& context) override {
    json details = language_list(context.services.catalog.list());
    json names = json::array();
    std::string text = "Supported languages:\n";
    for (const auto& language : details) {
      names.push_back(language["name"]);
      text += "- " + language["name"].get<std::string>() + ": " +
              language["description"].get<std::string>() +
              (language.contains("unavailable")
                   ? " (unavailable: " + language["unavailable"].get<std::string>() + ")"
                   : "") +
              "\n";
    }
    ToolResult result;
    result.content.push_back(text_block(text));
    result.structured = {{"languages", names}, {"details", details}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_get_supported_languages() {
  return std::make_unique<GetSupportedLanguages>();
}

}  // namespace paddock::mcp
