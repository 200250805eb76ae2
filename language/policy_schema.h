#pragma once

// policies/schema.json, embedded at build time, is the one description of the policy format:
// every policy is checked against it before parse_policy reads it (language/policy.cc), which
// then checks only what a schema cannot say (that a regex compiles, that a support file exists).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace paddock::language {

// The document's first problem against the schema, as "POINTER: what is wrong" (e.g.
// "/run: is missing", "/limits/pids: must be at least 2"), or nothing.
std::optional<std::string> policy_schema_problem(const nlohmann::json& document);

}  // namespace paddock::language
