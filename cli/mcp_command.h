#pragma once

// `paddock mcp`: resolves the flags with the environment, then serves MCP on stdio. Linked into
// paddock-full only (see dispatch.cc).

#include "cli/command_line.h"

namespace paddock::cli {

int mcp_command(const McpRequest& request);

}  // namespace paddock::cli
