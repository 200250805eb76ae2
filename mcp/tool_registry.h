#pragma once

// The tools paddock offers, registered explicitly in one place.

#include <memory>
#include <string>
#include <vector>

#include "tool.h"

namespace paddock::mcp {

class ToolRegistry {
 public:
  void add(std::unique_ptr<Tool> tool);
  [[nodiscard]] Tool* find(const std::string& name) const;
  [[nodiscard]] json list() const;  // the tools/list "tools" array

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

ToolRegistry builtin_tools();

}  // namespace paddock::mcp
