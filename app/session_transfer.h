#pragma once

// A transfer between a share and a session (host_transfer.h) as a caller asks for it: in the
// session it names, held for the transfer's length, with one audit line for every attempt
// (refused ones too, with the host path as given).

#include <functional>
#include <string>

#include "app/host_transfer.h"
#include "app/services.h"
#include "core/result.h"
#include "runtime/session.h"

namespace paddock::app {

using TransferOperation = std::function<Result<TransferReport>(Session& session)>;

// Runs `operation` in the session `session_id`; `tool` names the caller in the audit log,
// `action` is "upload" or "download", `host_path` the host path as the caller gave it.
Result<TransferReport> transfer_in_session(Services& services, const std::string& session_id,
                                           const std::string& tool, const std::string& action,
                                           const std::string& host_path,
                                           const TransferOperation& operation);

}  // namespace paddock::app
