#include "runtime/native/spec_validation.h"

#include <sys/stat.h>

#include "runtime/native/init/child.h"
#include "runtime/sandbox_validation.h"

namespace paddock::native {
namespace {

// Host paths bound into the sandbox, which init clones (at most kMaxBinds, the trust bundle's
// included).
core::Status validate_binds(const runtime::SandboxShape& shape) {
  if (shape.binds.size() + (shape.trust_bundle.empty() ? 0 : 1) > init::kMaxBinds) {
    return core::invalid_input("at most " + std::to_string(init::kMaxBinds) +
                               " bind mounts are supported");
  }
  for (const auto& bind : shape.binds) {
    if (!runtime::is_absolute_clean(bind.sandbox_path) ||
        runtime::is_reserved_path(bind.sandbox_path)) {
      return core::invalid_input("bind target '" + bind.sandbox_path +
                                 "' must be an absolute path outside /proc, /dev, /usr and /etc");
    }
    struct stat info {};
    if (!bind.host_path.starts_with("/") || stat(bind.host_path.c_str(), &info) != 0) {
      return core::invalid_input("bind source '" + bind.host_path +
                                 "' does not exist on the host (give an absolute path)");
    }
    // Checked again on the tree init binds (mount_applier.cc); here for a clear error.
    if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) {
      return core::invalid_input("bind source '" + bind.host_path +
                                 "' is a socket, FIFO or device, which would be a channel to the "
                                 "host: bind a folder or a regular file");
    }
  }
  return {};
}

}  // namespace

core::Status validate_spec(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                           bool session) {
  if (auto valid = runtime::validate_sandbox(shape, plan, session); !valid) return valid;
  for (const auto& name : shape.host_etc) {
    if (!runtime::is_host_etc_name(name)) {
      return core::invalid_input(
          "host /etc entry '" + name +
          "' refused: name one entry of /etc, not a path, a secret or a file "
          "paddock writes itself");
    }
  }
  if (shape.image_layers.size() > init::kMaxLayers) {
    return core::invalid_input("images of more than " + std::to_string(init::kMaxLayers) +
                               " layers are not supported");
  }
  if (shape.image_root == runtime::ImageRoot::kFlattened && shape.image_layers.size() != 1) {
    return core::invalid_input("a flattened image root is one directory, not " +
                               std::to_string(shape.image_layers.size()));
  }
  for (const auto& layer : shape.image_layers) {
    if (layer.empty() || layer[0] != '/') {
      return core::invalid_input("image layer '" + layer + "' must be an absolute host path");
    }
  }
  if (!shape.trust_bundle.empty()) {
    struct stat bundle {};
    if (!shape.trust_bundle.starts_with("/") || stat(shape.trust_bundle.c_str(), &bundle) != 0 ||
        !S_ISREG(bundle.st_mode)) {
      return core::invalid_input("the brokered secrets' trust bundle '" + shape.trust_bundle +
                                 "' is not a file on the host");
    }
  }
  return validate_binds(shape);
}

}  // namespace paddock::native
