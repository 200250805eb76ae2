#pragma once

// The user's server profiles on disk (~/.config/paddock/servers): read with care, since wrap
// reads them at every start of a server and acts on what they say.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace paddock::config {

// The largest profile file read: far above any real profile, and a bound on what a mistake (a
// log file named x.json) costs.
inline constexpr std::size_t kMaxProfileBytes = 1024 * 1024;

// Whether `name` may name a profile: a letter or digit, then letters, digits, '.', '_' and '-',
// 64 at most, and no "..": a file name in the profiles' folder, never a path.
bool is_profile_name(const std::string& name);

// The text of `directory`/NAME.json, or nothing when there is no such file (or no such folder).
// Refused, naming the file: a symlink that leads out of `directory` (or to nothing), anything
// but a regular file, or a file over kMaxProfileBytes. `name` must pass is_profile_name.
core::Result<std::optional<std::string>> read_user_profile(const std::string& directory,
                                                           const std::string& name);

// The names of the profiles in `directory` (NAME.json with a profile name, schema.json left
// out), sorted; none when it cannot be read.
std::vector<std::string> user_profile_names(const std::string& directory);

}  // namespace paddock::config
