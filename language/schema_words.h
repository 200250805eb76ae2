#pragma once

// How a value that a schema refused (core/json_schema.h) is worded in an error, the same for the
// language policies (language/policy_schema.h) and the server profiles
// (config/server_profile_schema.h): "must be a string or an integer", "'nodejs' is not valid; use
// node or python", "must be at least 2". What each says of a member (missing, unknown, badly
// named) is its own, as it knows what its members are called and how its places are written.

#include <string>

#include "core/json_schema.h"

namespace paddock::language {

// The words for `problem`, a value's (not a member's: kRequired, kUnknown, kPropertyName).
std::string schema_value_problem(const core::SchemaProblem& problem);

// "a, b or c", each a string's text or a value's JSON.
std::string schema_alternatives(const nlohmann::json& values);

}  // namespace paddock::language
