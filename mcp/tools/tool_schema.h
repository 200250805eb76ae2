#pragma once

// Pieces of tool definitions that several tools share.

#include "app/services.h"
#include "mcp/tool.h"

namespace paddock::mcp {

// No description: the name, and create_session's description, say what it is.
inline json session_id_property() {
  return {{"type", "string"}};
}

// A tool's `language` argument; `default_language` is the server's (--default-language).
// execute_code's names the languages (once); the others' need no words.
inline json language_property(const std::string& default_language) {
  return {{"type", "string"}, {"default", default_language}};
}

// A library list to install with the language's package manager.
inline json libraries_property(const std::string& description) {
  return {{"type", "array"},
          {"items", {{"type", "string"}}},
          {"maxItems", 50},
          {"description", description}};
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
