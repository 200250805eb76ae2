#pragma once

// An image's root where overlayfs cannot be mounted in a user namespace (Linux before 5.11, or
// a kernel without the overlay module): the layers merged once into a flattened copy in the
// store (rootfs/image_flatten.h), whose directories are then bound into the root one by one.
// In the default mode (ImageRoot::kAuto) overlayfs is tried first; when the kernel refuses it,
// the run is started again on the copy, and the rest of the process goes straight there.

#include "core/result.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/prepared_run.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

// Whether `shape` runs on the flattened copy: asked for, or overlayfs refused earlier.
bool flattened_root_wanted(const runtime::SandboxShape& shape);

// `shape` on its flattened copy, made first if it is not there yet.
core::Result<runtime::SandboxShape> with_flattened_root(const runtime::SandboxShape& shape);

// Whether a setup failure is the kernel refusing overlayfs where a flattened copy would do
// (ImageRoot::kAuto); remembered for the rest of the process.
bool overlay_refused(const runtime::SandboxShape& shape, const Prepared& prepared,
                     const init::ChildMessage& failure);

// Whether overlayfs was refused by this kernel earlier in this process.
bool overlay_refused_in_this_process();

// `attempt(shape, refused)` (a run, a session), and once more on the flattened copy when it set
// `refused`: with overlayfs where the kernel allows it, else with the copy.
template <typename Value, typename Attempt>
core::Result<Value> with_image_root_fallback(const runtime::SandboxShape& shape, Attempt attempt) {
  bool refused = false;
  if (!flattened_root_wanted(shape)) {
    core::Result<Value> result = attempt(shape, refused);
    if (!refused) return result;
  }
  auto flattened = with_flattened_root(shape);
  if (!flattened) return flattened.error();
  return attempt(*flattened, refused);
}

}  // namespace paddock::native
