#pragma once

// `paddock mcp`'s settings table. Every setting has a flag and an environment variable, because
// MCP clients start servers from JSON (`command`, `args`, `env`). A flag wins over its variable,
// a variable over the language policy's default; errors are one line naming the flag or
// variable as the user wrote it. docs/mcp.md's table lists the same rows (a unit test checks).

#include <vector>

#include "app/server_config.h"
#include "cli/settings.h"
#include "core/result.h"

namespace paddock::cli {

using McpSetting = Setting<app::ServerOptions>;

// In --help's order.
const std::vector<McpSetting>& mcp_settings();

// The flags given (from the command line) and the environment, as the server's options.
Result<app::ServerOptions> resolve_server_options(const FlagValues& flags, const Environment& env);

}  // namespace paddock::cli
