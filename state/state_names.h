#pragma once

// The names a caller gives to what is kept in a state directory (a session's name, a snapshot's):
// each becomes one directory entry, so it must be a plain file name, and short.

#include <string>

#include "core/result.h"

namespace paddock::state {

inline constexpr std::size_t kMaxNameLength = 64;

// `what` names the argument in the error ("name", "snapshot"). Letters, digits, '.', '_' and
// '-', 1 to kMaxNameLength of them, not starting with '.' or '-'.
core::Status check_state_name(const std::string& name, const std::string& what);

}  // namespace paddock::state
