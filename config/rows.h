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

// `paddock wrap` alone: which server profile, and what the wrapper does with the MCP stream.
std::vector<Setting> wrap_rows();

// `row`, taken by `paddock wrap` too. From its flag alone, as `paddock run` reads most of its
// own: a client's config line (and the profile it names) says all a wrapped server gets, and a
// PADDOCK_MEMORY meant for `paddock mcp` in the same environment must not change it.
inline Setting with_wrap(Setting row, std::string wrap_default = {}) {
  row.commands |= kWrap;
  row.wrap_default = std::move(wrap_default);
  return row;
}

}  // namespace paddock::config
