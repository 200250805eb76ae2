#pragma once

// The one settings table of `paddock run` and `paddock mcp` (config/settings.h says what a row
// holds). A row both commands take is written once: its flag, parser, default and help are the
// same for both.

#include <string>
#include <vector>

#include "config/settings.h"

namespace paddock::config {

// Every row, in --help's order: run's own, then both commands', then the server's.
const std::vector<Setting>& settings_table();

// The row of `flag` that `command` takes, or nullptr.
const Setting* find_setting(const std::string& flag, Command command);

}  // namespace paddock::config
