#pragma once

// The tools paddock offers, registered explicitly in one place.

#include <memory>
#include <string>
#include <vector>

#include "app/server_config.h"
#include "language/policy_store.h"
#include "mcp/tool.h"

namespace paddock::mcp {

class ToolRegistry {
 public:
  void add(std::unique_ptr<Tool> tool);
  [[nodiscard]] Tool* find(const std::string& name) const;
  // The tools/list "tools" array, and one tool's inputSchema: built once, when the tool is
  // added, not on every request.
  [[nodiscard]] const json& list() const { return definitions_; }
  [[nodiscard]] const json& input_schema(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  json definitions_ = json::array();  // in the order of tools_
};

// `default_language`: what execute_code and create_session run when a call names none.
ToolRegistry builtin_tools(const app::ServerOptions& options, const PolicyStore& policies);

}  // namespace paddock::mcp
