#pragma once

// `paddock mcp`'s options: the settings table's rows of the server (config/table.h), flag over
// variable over the language policy's default, with what the server finds in its environment
// besides (the secrets' values, the user's policies, the state directory). Errors are one line
// naming the flag or variable as the user wrote it.

#include "app/server_config.h"
#include "config/settings.h"
#include "core/result.h"

namespace paddock::cli {

// The flags given (from the command line) and the environment, as the server's options.
core::Result<app::ServerOptions> resolve_server_options(const config::FlagValues& flags,
                                                        const config::Environment& env);

}  // namespace paddock::cli
