#pragma once

// The server profiles of `paddock wrap` as they were when paddock was built (generated from
// policies/servers/ by config/CMakeLists.txt); config/server_profile.h reads them.

#include <string_view>
#include <utility>
#include <vector>

namespace paddock::config {

// policies/servers/*.json but schema.json: the profile's name (its file name without ".json")
// and its text, sorted by name.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_server_profiles();

// policies/servers/schema.json: the one description of the format, which every profile, built-in
// or the user's, is checked against.
std::string_view builtin_server_profile_schema();

}  // namespace paddock::config
