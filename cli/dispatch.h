#pragma once

// The command line's dispatch, shared by the two executables (main.cc, full_main.cc).

#include <functional>

#include "cli/audit_opener.h"
#include "cli/command_line.h"
#include "cli/secret_broker_setup.h"

namespace paddock::cli {

struct Executable {
  // What `import` and `pull` run: in paddock, a hand-over to paddock-full.
  std::function<int(const ImageRequest&)> transfer_images;
  // What `mcp` runs; only paddock-full has it.
  std::function<int(const McpRequest&)> serve_mcp;
  // Whether every backend is linked in; if not, commands that need others are handed over.
  bool has_all_backends = false;
  // What terminates TLS for brokered secrets (`run --secret`); only paddock-full links one, so
  // the lean paddock hands such a run over.
  TerminatorMaker make_terminator;
  // What opens the audit log (`run --audit-log`): only paddock-full links one (it hashes code
  // with libcrypto), so the lean paddock hands such a run over.
  AuditOpener open_audit_log;
};

int dispatch(int argc, char** argv, const Executable& executable);

// Replaces this process with paddock-full (beside this executable) and the same arguments;
// returns only on failure, with the error printed.
int exec_full_paddock(const ImageRequest& = {});

}  // namespace paddock::cli
