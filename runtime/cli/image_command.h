#pragma once

#include "cli/command_line.h"

namespace paddock::cli {

// `paddock images|import|pull|rmi|gc`.
int image_command(const ImageRequest& request);

}  // namespace paddock::cli
