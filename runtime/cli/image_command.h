#pragma once

#include "cli/command_line.h"
#include "core/result.h"
#include "sandbox_spec.h"

namespace paddock::cli {

// `paddock images|import|rmi|gc`.
int image_command(const ImageRequest& request);

// Puts `image` under the sandbox: its layers as the root, its environment under the spec's,
// its working directory, and its entrypoint and command when the spec has no command.
Status apply_image(const std::string& image, const std::optional<std::string>& root,
                   SandboxSpec& spec);

}  // namespace paddock::cli
