#pragma once

// Checks tool arguments against their tool's input schema (core/json_schema.h does the checking;
// this words its problems for a model), so a tool body only ever sees arguments of the shape it
// declared.

#include <optional>
#include <string>

#include "mcp/json_rpc.h"

namespace paddock::mcp {

// What is wrong with `value`, named by its path (e.g. "files[0].encoding"), or nothing.
std::optional<std::string> check_arguments(const json& value, const json& schema);

}  // namespace paddock::mcp
