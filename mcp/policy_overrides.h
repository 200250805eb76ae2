#pragma once

// A server's settings over the language policies, applied once at start so that every tool
// (execute_code, sessions, get_language_details) sees the same effective policy: limits and
// networks from flags or environment win over each policy's, and --image gives a language its
// root file system.

#include "app/server_config.h"
#include "core/result.h"
#include "language/policy_store.h"

namespace paddock::mcp {

// Fails, naming the setting, when it names a language there is not.
core::Status apply_server_options(const app::ServerOptions& options,
                                  language::PolicyStore& policies);

}  // namespace paddock::mcp
