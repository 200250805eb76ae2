// get_language_details: one language's toolchain, limits and an example.

#include "mcp/content.h"
#include "mcp/language_catalog.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class GetLanguageDetails final : public Tool {
 public:
  std::string name() const override { return "get_language_details"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Language details"},
            {"description",
             "A language's version, package manager, preinstalled libraries, example program "
             "and default limits."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"language", {{"type", "string"}, {"description", "Name or alias, e.g. js."}}}}},
              {"required", {"language"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"name", {{"type", "string"}}},
                {"version", {{"type", "string"}}},
                {"file_extension", {{"type", "string"}}},
                {"package_manager", {{"type", {"string", "null"}}}},
                {"preinstalled", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                {"example", {{"type", "string"}}},
                {"limits", {{"type", "object"}}}}},
              {"required", {"name", "version", "file_extension", "example", "limits"}}}},
            {"annotations", annotations("Language details", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    auto found = context.services.catalog.details(arguments["language"].get<std::string>());
    if (!found) return tool_error(found.error());
    json details = language_details(*found);
    ToolResult result;
    result.content.push_back(text_block(details.dump(2)));
    result.structured = std::move(details);
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_get_language_details() {
  return std::make_unique<GetLanguageDetails>();
}

}  // namespace paddock::mcp
