#pragma once

// A sandbox on an image: the image's layers from the store become the spec's root file system,
// with the image's environment, working directory and entrypoint/command. Used by `paddock run
// --image`, by language policies whose rootfs is "image:REF", and by the MCP server.

#include <optional>
#include <string>

#include "core/result.h"
#include "sandbox_spec.h"

namespace paddock {

// The image a policy's rootfs setting names ("image:REF"), or nothing for "host".
std::optional<std::string> image_of_rootfs(const std::string& rootfs);

// How image roots are made, from PADDOCK_IMAGE_ROOT (auto, overlay or flattened; unset: auto).
Result<ImageRoot> image_root_from_environment();

// Puts `image` (a reference or id in the store at `root`, or the default store) under the
// sandbox: its layers as the root, its environment under the spec's, its working directory, and
// its entrypoint and command when the spec has no command. A language run (`as_language`) keeps
// its own command and working directory: the image only supplies the files and environment.
// The root is made as PADDOCK_IMAGE_ROOT says (see SandboxSpec::image_root).
Status apply_image(const std::string& image, const std::optional<std::string>& root,
                   SandboxSpec& spec, bool as_language = false);

}  // namespace paddock
