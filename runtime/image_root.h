#pragma once

// A sandbox on an image: the image's layers from the store become the spec's root file system,
// with the image's environment, working directory and entrypoint/command. Used by `paddock run
// --image`, by language policies whose rootfs is "image:REF", and by the MCP server.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::runtime {

// The image a policy's rootfs setting names ("image:REF"), or nothing for "host".
std::optional<std::string> image_of_rootfs(const std::string& rootfs);

// How image roots are made, as PADDOCK_IMAGE_ROOT says (auto, overlay or flattened; unset:
// auto). The command line reads the variable; this only parses it.
core::Result<ImageRoot> parse_image_root(const std::optional<std::string>& setting);

// What an image gives a sandbox, as the backend that runs it found it (Backend::resolve_image).
// A container engine knows only the reference: the engine applies the rest itself.
struct ResolvedImage {
  std::string reference;            // as the store or the engine names it
  std::vector<std::string> layers;  // paddock's store: the layers' directories, top layer first
  std::string flattened_dir;        // see SandboxShape::image_flattened_dir
  ImageRoot root = ImageRoot::kAuto;
  std::vector<std::string> env;     // the image's, under the spec's
  std::optional<SandboxUser> user;  // the image's user, unless root or unset
  std::string working_dir;
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
};

// `image` (a reference or id) from the store at `root`, with its configuration, its root to be
// made as `mode` says. Reads the store; changes nothing.
core::Result<ResolvedImage> resolve_store_image(const std::string& image, const std::string& root,
                                                ImageRoot mode);

// Puts a resolved image under the sandbox, as the spec builder builds a shape and a plan: its
// layers as the shape's root, its environment under the plan's, its user, and (for a command
// run) its working directory and its entrypoint and command when the plan has no command. A
// language run (`as_language`) keeps its own command and working directory: the image only
// supplies the files and environment. Pure.
core::Status apply_image(const ResolvedImage& image, SandboxShape& shape, RunPlan& plan,
                         bool as_language);

}  // namespace paddock::runtime
