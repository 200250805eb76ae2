#pragma once

// Starts `paddock mcp`: loads and checks every language policy, applies the options over them,
// opens the audit log and connects the backend first (so a bad configuration fails before stdin
// is read, with one line on stderr), then serves stdio.

#include <functional>
#include <memory>
#include "app/server_config.h"

#include "mcp/server.h"
#include "runtime/backend.h"

namespace paddock::mcp {

// Creates the backend the options name, with its settings (the command line above knows the
// backends and resolves their settings).
using BackendConnector = std::function<core::Result<std::unique_ptr<runtime::Backend>>()>;

// `wording` adds to an error that names a setting how the operator sets it (Server's).
int serve_stdio(const app::ServerOptions& options, const BackendConnector& connect_backend,
                const SettingWording& wording = {});

}  // namespace paddock::mcp
