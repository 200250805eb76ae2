#pragma once

#include "cli/command_line.h"

namespace paddock::cli {

// `paddock policy list|show LANG|check FILE`.
int policy_command(const PolicyRequest& request);

}  // namespace paddock::cli
