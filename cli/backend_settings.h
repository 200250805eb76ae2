#pragma once

// The backends' settings from the environment, resolved here (the only floor that reads it) and
// handed down typed: the engines' and the cluster's locations as their own clients find them,
// and paddock's variables for each backend. `paddock mcp` lays its settings table's values over
// these (mcp_command.cc).

#include "cli/backend_registry.h"
#include "config/settings.h"

namespace paddock::cli {

BackendSettings backend_settings(const config::Environment& env);

}  // namespace paddock::cli
