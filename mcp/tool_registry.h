#pragma once

// The tools paddock offers, registered explicitly in one place.

#include <memory>
#include <string>
#include <vector>

#include "app/server_config.h"
#include "core/json_schema.h"
#include "core/result.h"
#include "language/policy_store.h"
#include "mcp/tool.h"

namespace paddock::mcp {

class ToolRegistry {
 public:
  // Refuses a tool whose inputSchema uses a keyword the argument checker would not honour (the
  // error names the tool, the keyword and where), so that no tool's arguments are checked less
  // than its schema tells the client.
  [[nodiscard]] core::Result<void> add(std::unique_ptr<Tool> tool);
  [[nodiscard]] Tool* find(const std::string& name) const;
  // The tools/list "tools" array, and a found tool's inputSchema compiled: built once, when the
  // tool is added, not on every request.
  [[nodiscard]] const json& list() const { return definitions_; }
  [[nodiscard]] const core::JsonSchema& input_schema(const Tool& tool) const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  json definitions_ = json::array();             // in the order of tools_
  std::vector<core::JsonSchema> input_schemas_;  // in the order of tools_
};

// `default_language`: what execute_code and create_session run when a call names none. An error
// is a tool schema that does not compile: a bug of paddock's, which the server refuses to start
// with.
core::Result<ToolRegistry> builtin_tools(const app::ServerOptions& options,
                                         const language::PolicyStore& policies);

}  // namespace paddock::mcp
