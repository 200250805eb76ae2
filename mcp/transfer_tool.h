#pragma once

// What upload_file and download_file share: the session they work in, one audit line for every
// attempt (refused ones too, with the host path as given), and a result of a few lines, so a
// 50 MB file costs the conversation no more than its name, size and digest.

#include <functional>
#include <string>

#include "mcp/tool.h"
#include "services/host_transfer.h"

namespace paddock::mcp {

using TransferOperation = std::function<Result<TransferReport>(Session& session)>;

// Runs `operation` in the session `arguments.session_id` names; `action` is "upload" or
// "download", `host_path` the argument as the model gave it.
ToolResult run_transfer(ToolContext& context, const json& arguments, const std::string& tool,
                        const std::string& action, const std::string& host_path,
                        const TransferOperation& operation);

// The outputSchema both tools declare.
json transfer_output_schema();

}  // namespace paddock::mcp
