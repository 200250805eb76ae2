#pragma once

#include "cli/command_line.h"

namespace paddock::cli {

// `paddock run`: a command, or code in a language. Returns the exit status (see README).
int run_command(RunRequest& request);

}  // namespace paddock::cli
