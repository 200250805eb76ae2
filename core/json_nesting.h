#pragma once

// How deep a JSON text nests, counted before it is parsed: nlohmann's parser recurses once per
// level, so a line of a million '[' from a client or a wrapped server would exhaust the stack.

#include <string_view>

namespace paddock::core {

// The deepest bracket nesting of `text` outside strings, stopping early once past `limit`.
int json_nesting_depth(std::string_view text, int limit);

}  // namespace paddock::core
