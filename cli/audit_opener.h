#pragma once

// What opens `paddock run --audit-log FILE`. The log hashes code with libcrypto, which only
// paddock-full links (cli/dispatch.h), so the opener is handed to the dispatch by the executable.

#include <functional>
#include <string>
#include <vector>

#include "app/code_gate.h"
#include "core/result.h"

namespace paddock::cli {

// `masked`: NAME=VALUE assignments whose values no line may hold (a wrapped server's passed-through
// variables, which its tool calls' values may carry).
using AuditOpener = std::function<core::Result<app::AuditRecorder>(
    const std::string& path, const std::vector<std::string>& masked)>;

// paddock-full's opener: appends to `path` as the server's audit log does (app/audit_log.h).
core::Result<app::AuditRecorder> open_audit_log(const std::string& path,
                                                const std::vector<std::string>& masked);

}  // namespace paddock::cli
