#include "cli/mcp_command.h"

#include "cli/available_backends.h"
#include "mcp/serve.h"
#include "services/log.h"

namespace paddock::cli {

int mcp_command(const McpRequest& request) {
  auto options = mcp::resolve_server_options(request.flags, mcp::process_environment());
  if (!options) {
    // As every configuration error of the server: one line, exit status 2, before stdin is read.
    mcp::log(mcp::LogLevel::kError, options.error().message);
    return 2;
  }
  return mcp::serve_stdio(*options, available_backends());
}

}  // namespace paddock::cli
