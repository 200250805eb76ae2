#pragma once

// Pieces of tool definitions that several tools share.

#include "server_state.h"
#include "tool.h"

namespace paddock::mcp {

inline json session_id_property() {
  return {{"type", "string"}, {"description", "The id create_session returned."}};
}

inline json path_property(const std::string& description) {
  return {{"type", "string"}, {"description", description}};
}

inline json annotations(const std::string& title, bool read_only, bool idempotent,
                        bool destructive = false) {
  json result = {{"title", title},
                 {"readOnlyHint", read_only},
                 {"idempotentHint", idempotent},
                 {"openWorldHint", false}};
  if (!read_only) result["destructiveHint"] = destructive;
  return result;
}

}  // namespace paddock::mcp
