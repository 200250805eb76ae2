#pragma once

// `paddock wrap [OPTIONS] -- COMMAND [ARGS...]`: another stdio MCP server in a sandbox
// (app/wrapped_server.h). Here only what a command line has to do: the profile and flags
// resolved into settings, the shares, the kept home and the secrets made, the audit log opened.

#include "cli/audit_opener.h"
#include "cli/command_line.h"
#include "cli/secret_broker_setup.h"

namespace paddock::cli {

int wrap_command(const WrapRequest& request, const TerminatorMaker& make_terminator,
                 const AuditOpener& open_audit_log);

}  // namespace paddock::cli
