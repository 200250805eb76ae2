#include "mcp/tool_registry.h"

#include "mcp/tools/tools.h"

namespace paddock::mcp {

ToolResult tool_error(const std::string& message) {
  ToolResult result;
  result.content.push_back(json{{"type", "text"}, {"text", message}});
  result.is_error = true;
  return result;
}

void ToolRegistry::add(std::unique_ptr<Tool> tool) {
  definitions_.push_back(tool->definition());
  tools_.push_back(std::move(tool));
}

Tool* ToolRegistry::find(const std::string& name) const {
  for (const auto& tool : tools_) {
    if (tool->name() == name) return tool.get();
  }
  return nullptr;
}

const json& ToolRegistry::input_schema(const std::string& name) const {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    if (tools_[i]->name() == name) return definitions_[i]["inputSchema"];
  }
  static const json kNone = json::object();
  return kNone;
}

ToolRegistry builtin_tools(const app::ServerOptions& options, const PolicyStore& policies) {
  const std::string& default_language = options.default_language;
  ToolRegistry registry;
  registry.add(make_execute_code(options, policies));
  registry.add(make_get_supported_languages());
  registry.add(make_get_language_details());
  registry.add(make_create_session(default_language));
  registry.add(make_close_session());
  registry.add(make_restart_session());
  registry.add(make_list_sessions());
  registry.add(make_get_session());
  registry.add(make_snapshot_session());
  registry.add(make_fork_session(default_language));
  registry.add(make_diff_session());
  registry.add(make_export_session());
  registry.add(make_install_libraries());
  registry.add(make_write_file());
  registry.add(make_read_file());
  registry.add(make_list_files());
  registry.add(make_upload_file());
  registry.add(make_download_file());
  registry.add(make_expose_port());
  return registry;
}

}  // namespace paddock::mcp
