#pragma once

#include "cli/audit_opener.h"
#include "cli/command_line.h"
#include "cli/secret_broker_setup.h"

namespace paddock::cli {

// `paddock run`: a command, or code in a language. Returns the exit status (see README).
// `make_terminator`: for brokered secrets (--secret); dispatch hands a run with secrets to
// paddock-full when this executable has none.
// `open_audit_log`: for --audit-log, which dispatch likewise hands to paddock-full.
int run_command(RunRequest& request, const TerminatorMaker& make_terminator = {},
                const AuditOpener& open_audit_log = {});

}  // namespace paddock::cli
