#pragma once

// How `paddock run` and `paddock mcp` word an error that names a setting (Error::setting, by its
// neutral name from runtime/setting_names.h): the floors below say what to change in words, and
// the table's row of that setting adds how this command's user changes it, its flag and the
// variables the command reads.

#include <string>

#include "config/settings.h"
#include "core/result.h"

namespace paddock::config {

// " (set by --require-cgroups or PADDOCK_REQUIRE_CGROUPS)" for `command`; empty where the
// setting is unknown or not one of `command`'s.
std::string how_to_set(const std::string& setting, Command command);

// The error's message, with how_to_set of its setting: one line, what was wrong and the fix.
std::string worded(const core::Error& error, Command command);

}  // namespace paddock::config
