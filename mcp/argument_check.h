#pragma once

// Checks tool arguments against their tool's input schema (core/json_schema.h does the checking;
// this words its problems for a model), so a tool body only ever sees arguments of the shape it
// declared.

#include <optional>
#include <string>

#include "core/json_schema.h"
#include "core/result.h"
#include "mcp/json_rpc.h"

namespace paddock::mcp {

// A tool's input schema, ready for check_arguments, with RE2 for "pattern"; or an error naming
// the first keyword the checker would not honour and where it is (core/json_schema.h).
core::Result<core::JsonSchema> compile_input_schema(const json& schema);

// What is wrong with `value`, named by its path (e.g. "files[0].encoding"), or nothing.
std::optional<std::string> check_arguments(const json& value, const core::JsonSchema& schema);

}  // namespace paddock::mcp
