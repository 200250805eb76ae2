#pragma once

// The table's parts, each in --help's order (config/table.cc puts them together).

#include <vector>

#include "config/options.h"
#include "config/settings.h"

namespace paddock::config {

using Env = const Environment&;

// Both commands: where sandboxes run, their limits, their network and brokered secrets.
std::vector<Setting> sandbox_rows();

// `paddock mcp` alone: the server's calls, sessions, warm pool, previews, shares and images.
std::vector<Setting> server_rows();

// `paddock run` alone: what one run brings.
std::vector<Setting> run_rows();

}  // namespace paddock::config
