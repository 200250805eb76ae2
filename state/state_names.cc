#include "state/state_names.h"

#include <cctype>

namespace paddock::state {

core::Status check_state_name(const std::string& name, const std::string& what) {
  auto refuse = [&](const std::string& why) {
    return core::invalid_input(what + " '" + name.substr(0, kMaxNameLength) + "' " + why +
                               ": use 1 to " + std::to_string(kMaxNameLength) +
                               " letters, digits, '.', '_' or '-', not starting with '.' or '-'");
  };
  if (name.empty())
    return core::invalid_input(what + " is empty: give 1 to " + std::to_string(kMaxNameLength) +
                               " letters, digits, '.', '_' or '-'");
  if (name.size() > kMaxNameLength) return refuse("is too long");
  if (name[0] == '.' || name[0] == '-') return refuse("starts with '" + name.substr(0, 1) + "'");
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') {
      return refuse(c == '/' ? "is a path" : "has a character that is not allowed");
    }
  }
  return {};
}

}  // namespace paddock::state
