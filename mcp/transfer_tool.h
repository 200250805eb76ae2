#pragma once

// What upload_file and download_file share: the transfer in the session they name
// (app/session_transfer.h), and a result of a few lines, so a 50 MB file costs the
// conversation no more than its name, size and digest.

#include <functional>
#include <string>

#include "app/session_transfer.h"
#include "mcp/tool.h"

namespace paddock::mcp {

// Runs `operation` in the session `arguments.session_id` names; `action` is "upload" or
// "download", `host_path` the argument as the model gave it.
// A transfer's report (`action`: "upload" or "download") as the tool's answer.
ToolResult transfer_result(const core::Result<app::TransferReport>& report,
                           const std::string& action);

// The outputSchema both tools declare.
json transfer_output_schema();

}  // namespace paddock::mcp
