#pragma once

// Starts `paddock mcp`: loads and checks every language policy, applies the options over them,
// opens the audit log and connects the backend first (so a bad configuration fails before stdin
// is read, with one line on stderr), then serves stdio.

#include "mcp/server_config.h"
#include "runtime/backend_registry.h"

namespace paddock::mcp {

// `backends`: the ones this executable has (chosen by the command line above).
int serve_stdio(const ServerOptions& options, const BackendRegistry& backends);

}  // namespace paddock::mcp
