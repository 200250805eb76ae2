// install_libraries: packages into a session, with its language's package manager (the E2B
// server's install_package).

#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "core/text.h"
#include "mcp/content.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class InstallLibraries final : public Tool {
 public:
  std::string name() const override { return "install_libraries"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Install libraries in a session"},
            {"description",
             "Installs packages into a session (pip, npm, gem...); only the installer gets "
             "network."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"libraries", libraries_property("e.g. [\"numpy\", \"requests==2.32.3\"]")}}},
              {"required", {"session_id", "libraries"}},
              {"additionalProperties", false}}},
            {"outputSchema", json::parse(R"({
              "type": "object",
              "properties": {
                "session_id": {"type": "string"},
                "libraries": {"type": "array", "items": {"type": "string"}},
                "installed": {"type": "boolean"},
                "output": {"type": "string"},
                "duration_ms": {"type": "integer"}},
              "required": ["session_id", "libraries", "installed", "output"]})")},
            {"annotations", annotations("Install libraries", false, true)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string id = arguments["session_id"].get<std::string>();
    auto libraries = arguments["libraries"].get<std::vector<std::string>>();
    if (libraries.empty()) return tool_error("no libraries given: name at least one package");
    auto lease = context.services.registry.acquire(id);
    if (!lease) return tool_error(lease.error());
    ProgressObserver observer(context);
    auto installed = context.services.code.install(**lease, libraries, observer, context.user);
    if (auto why = app::install_failure(installed)) {
      return tool_error("installing " + core::counted(libraries.size(), "library", "libraries") +
                        " into session " + id + " failed: " + *why);
    }
    std::string output = installed->stderr_data.data;
    std::string not_kept = app::keep_session_files(**lease);
    ToolResult result;
    if (!not_kept.empty()) result.content.push_back(text_block(not_kept));
    result.content.push_back(
        text_block("installed " + core::counted(libraries.size(), "library", "libraries") +
                   " into session " + id + " (" + std::to_string(installed->duration_ms) + " ms)"));
    result.structured = {{"session_id", id},
                         {"libraries", libraries},
                         {"installed", true},
                         {"output", output},
                         {"duration_ms", installed->duration_ms}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_install_libraries() {
  return std::make_unique<InstallLibraries>();
}

}  // namespace paddock::mcp
