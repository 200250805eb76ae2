#pragma once

// One line for each thing the sandbox refused a run, so that a model can tell a sandbox rule
// from a bug in its code: system calls the seccomp filter refused (counted by its supervisor),
// processes past the pids limit, memory past the limit, a full /work or /tmp, a write to a
// read-only path, and, in a sandbox with no network, a failed name lookup or connection.
// Counted refusals come from the result; the rest is recognised in the program's own output
// (RE2, bounded by the output caps), only where the sandbox's rule is the likely cause.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/run_result.h"

namespace paddock::language {

struct RefusalContext {
  // How a host is let in, said after the no-network line: for the server, that only the user
  // can (worded as the allowlist's own refusal line is); for paddock run, the flag.
  std::string_view allow_host_hint =
      "Only the user can allow a host (paddock mcp --allow-host); tool arguments cannot.";
  // Whether the output is the program's: false when a failed library install ended the run
  // (its installer had the network the program has not; its failure is diagnosed elsewhere).
  bool program_output = true;
};

// The lines, each without its newline; empty when nothing was refused that paddock can tell.
std::vector<std::string> refusal_lines(const runtime::RunResult& result,
                                       const RefusalContext& context);

}  // namespace paddock::language
