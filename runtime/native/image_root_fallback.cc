#include "runtime/native/image_root_fallback.h"

#include <atomic>
#include <cerrno>

#include "rootfs/image_flatten.h"

namespace paddock {
namespace {

std::atomic<bool> g_overlay_refused{false};

}  // namespace

bool flattened_root_wanted(const SandboxSpec& spec) {
  if (spec.image_layers.empty() || spec.image_flattened_dir.empty()) return false;
  if (spec.image_root == ImageRoot::kFlattened) return true;
  return spec.image_root == ImageRoot::kAuto && g_overlay_refused.load();
}

bool overlay_refused_in_this_process() {
  return g_overlay_refused.load();
}

Result<SandboxSpec> with_flattened_root(const SandboxSpec& spec) {
  if (auto made = rootfs::flatten_layers(spec.image_layers, spec.image_flattened_dir); !made) {
    return made.error();
  }
  SandboxSpec flattened = spec;
  flattened.image_layers = {spec.image_flattened_dir};
  flattened.image_root = ImageRoot::kFlattened;
  return flattened;
}

bool overlay_refused(const SandboxSpec& spec, const Prepared& prepared,
                     const ChildMessage& failure) {
  if (spec.image_root != ImageRoot::kAuto || spec.image_flattened_dir.empty()) return false;
  if (failure.kind != ChildMessageKind::kSetupFailed || failure.phase != SetupPhase::kMount ||
      failure.detail < 0 ||
      static_cast<std::size_t>(failure.detail) >= prepared.mounts.steps.size()) {
    return false;
  }
  if (prepared.mounts.steps[static_cast<std::size_t>(failure.detail)].kind !=
      MountStep::Kind::kOverlayRoot) {
    return false;
  }
  // What a kernel says when it has no overlayfs (ENODEV), or will not mount it in a user
  // namespace (EPERM), or lacks an option paddock needs, such as userxattr (EINVAL).
  bool refused = failure.error == ENODEV || failure.error == EPERM || failure.error == EINVAL ||
                 failure.error == EOPNOTSUPP;
  if (refused) g_overlay_refused.store(true);
  return refused;
}

}  // namespace paddock
