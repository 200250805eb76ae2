#pragma once

// What paddock tells models about its languages: the list, and one language's details
// (toolchain version as the sandbox sees it, file extension, package manager, example, limits).

#include "json_rpc.h"
#include "language/policy.h"
#include "server_state.h"

namespace paddock::mcp {

json language_list(const ServerState& state);
// The toolchain version is asked once per language, in a sandbox, and remembered.
json language_details(ServerState& state, const LanguagePolicy& policy);

}  // namespace paddock::mcp
