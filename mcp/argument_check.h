#pragma once

// Checks tool arguments against the subset of JSON Schema paddock's own input schemas use
// (object properties, required, additionalProperties false, types, enum, bounds, items), so a
// tool body only ever sees arguments of the shape it declared.

#include <optional>
#include <string>

#include "mcp/json_rpc.h"

namespace paddock::mcp {

// What is wrong with `value`, named by its path (e.g. "files[0].encoding"), or nothing.
std::optional<std::string> check_arguments(const json& value, const json& schema);

}  // namespace paddock::mcp
