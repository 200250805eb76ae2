#include "mcp/tool_registry.h"

#include <stdexcept>

#include "mcp/argument_check.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {

ToolResult tool_error(const std::string& message) {
  ToolResult result;
  result.content.push_back(json{{"type", "text"}, {"text", message}});
  result.is_error = true;
  return result;
}

ToolResult tool_error(const core::Error& error) {
  ToolResult result = tool_error(error.message);
  result.setting = error.setting;
  return result;
}

core::Result<void> ToolRegistry::add(std::unique_ptr<Tool> tool) {
  json definition = tool->definition();
  auto schema = compile_input_schema(definition["inputSchema"]);
  if (!schema) return schema.error().context(tool->name() + "'s inputSchema");
  definitions_.push_back(std::move(definition));
  input_schemas_.push_back(std::move(*schema));
  tools_.push_back(std::move(tool));
  return {};
}

Tool* ToolRegistry::find(const std::string& name) const {
  for (const auto& tool : tools_) {
    if (tool->name() == name) return tool.get();
  }
  return nullptr;
}

const core::JsonSchema& ToolRegistry::input_schema(const Tool& tool) const {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    if (tools_[i].get() == &tool) return input_schemas_[i];
  }
  // No schema to fall back on: an empty one would take any arguments.
  throw std::logic_error(tool.name() + " is not a registered tool");
}

core::Result<ToolRegistry> builtin_tools(const app::ServerOptions& options,
                                         const language::PolicyStore& policies) {
  const std::string& default_language = options.default_language;
  std::unique_ptr<Tool> tools[] = {
      make_execute_code(options, policies),
      make_get_supported_languages(),
      make_get_language_details(),
      make_create_session(default_language),
      make_close_session(),
      make_restart_session(),
      make_list_sessions(),
      make_get_session(),
      make_snapshot_session(),
      make_fork_session(default_language),
      make_diff_session(),
      make_export_session(),
      make_install_libraries(),
      make_write_file(),
      make_read_file(),
      make_list_files(),
      make_upload_file(),
      make_download_file(),
      make_expose_port(),
  };
  ToolRegistry registry;
  for (auto& tool : tools) {
    if (auto added = registry.add(std::move(tool)); !added) return added.error();
  }
  return registry;
}

}  // namespace paddock::mcp
