#pragma once

// Starts `paddock mcp`: loads and checks every language policy, applies the options over them,
// opens the audit log and connects the backend first (so a bad configuration fails before stdin
// is read, with one line on stderr), then serves stdio.

#include "server_config.h"

namespace paddock::mcp {

int serve_stdio(const ServerOptions& options);

}  // namespace paddock::mcp
