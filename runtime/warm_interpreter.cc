#include "runtime/warm_interpreter.h"

#include <map>
#include <optional>
#include <set>

namespace paddock::runtime {
namespace {

// "K=V" entries by name, the last one winning (as merge_env and execve's readers see them).
std::map<std::string, std::string> by_name(const std::vector<std::string>& env) {
  std::map<std::string, std::string> values;
  for (const auto& entry : env) {
    auto equals = entry.find('=');
    if (equals == std::string::npos) continue;
    values[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return values;
}

std::optional<std::string> value_of(const std::map<std::string, std::string>& values,
                                    const std::string& name) {
  auto found = values.find(name);
  if (found == values.end()) return std::nullopt;
  return found->second;
}

}  // namespace

bool matches_variable(const std::vector<std::string>& patterns, const std::string& name) {
  for (const auto& pattern : patterns) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (name.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1))) return true;
    } else if (pattern == name) {
      return true;
    }
  }
  return false;
}

bool fits(const WarmInterpreter& interpreter, const RunPlan& plan) {
  if (plan.steps.size() != 1 || plan.steps.front() != interpreter.program) return false;
  if (interpreter.streams_from_start && plan.stdin_fd >= 0) return false;
  for (const auto& [name, value] : by_name(interpreter.start_env)) {
    if (by_name(plan.env).contains(name)) return false;
  }
  auto started = by_name(interpreter.env);
  auto wanted = by_name(plan.env);
  std::set<std::string> names;
  for (const auto& [name, value] : started) names.insert(name);
  for (const auto& [name, value] : wanted) {
    if (matches_variable(interpreter.startup_variables, name)) names.insert(name);
  }
  for (const auto& name : names) {
    if (value_of(started, name) != value_of(wanted, name)) return false;
  }
  return true;
}

}  // namespace paddock::runtime
