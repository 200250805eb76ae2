#pragma once

// policies/servers/schema.json, embedded at build time, is the one description of the server
// profile format: every profile, built-in or the user's, is checked against it before
// config/server_profile.cc reads it, which then checks only what a schema cannot say (that a
// share's folder exists, that a version comes with a package).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace paddock::config {

// The profile's first problem against the schema, or nothing. Worded to follow "FILE: ": the key
// first, as the profile's author wrote it ("limits.memory: must be a string or an integer",
// "hosts[0]: must not be empty", "unknown key 'limitz' (the keys are ...)").
std::optional<std::string> server_profile_schema_problem(const nlohmann::json& profile);

// A key's place as "limits.memory", "shares[0]" or "env.HOME": how errors name it.
std::string profile_key(const std::string& parent, const std::string& member);
std::string profile_item(const std::string& parent, std::size_t index);

// `text` as a JSON string's contents: control characters escaped, so that an error stays one line.
std::string escaped(const std::string& text);

}  // namespace paddock::config
