#include "runtime/native/image_root_fallback.h"

#include <atomic>
#include <cerrno>

#include "rootfs/image_flatten.h"

namespace paddock::native {
namespace {

std::atomic<bool> g_overlay_refused{false};

}  // namespace

bool flattened_root_wanted(const runtime::SandboxShape& shape) {
  if (shape.image_layers.empty() || shape.image_flattened_dir.empty()) return false;
  if (shape.image_root == runtime::ImageRoot::kFlattened) return true;
  return shape.image_root == runtime::ImageRoot::kAuto && g_overlay_refused.load();
}

bool overlay_refused_in_this_process() {
  return g_overlay_refused.load();
}

core::Result<runtime::SandboxShape> with_flattened_root(const runtime::SandboxShape& shape) {
  if (auto made = rootfs::flatten_layers(shape.image_layers, shape.image_flattened_dir); !made) {
    return made.error();
  }
  runtime::SandboxShape flattened = shape;
  flattened.image_layers = {shape.image_flattened_dir};
  flattened.image_root = runtime::ImageRoot::kFlattened;
  return flattened;
}

bool overlay_refused(const runtime::SandboxShape& shape, const Prepared& prepared,
                     const init::ChildMessage& failure) {
  if (shape.image_root != runtime::ImageRoot::kAuto || shape.image_flattened_dir.empty())
    return false;
  if (failure.kind != init::ChildMessageKind::kSetupFailed ||
      failure.phase != init::SetupPhase::kMount || failure.detail < 0 ||
      static_cast<std::size_t>(failure.detail) >= prepared.mounts.steps.size()) {
    return false;
  }
  if (prepared.mounts.steps[static_cast<std::size_t>(failure.detail)].kind !=
      init::MountStep::Kind::kOverlayRoot) {
    return false;
  }
  // What a kernel says when it has no overlayfs (ENODEV), or will not mount it in a user
  // namespace (EPERM), or lacks an option paddock needs, such as userxattr (EINVAL).
  bool refused = failure.error == ENODEV || failure.error == EPERM || failure.error == EINVAL ||
                 failure.error == EOPNOTSUPP;
  if (refused) g_overlay_refused.store(true);
  return refused;
}

}  // namespace paddock::native
