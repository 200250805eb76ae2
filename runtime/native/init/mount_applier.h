#pragma once

#include <cstddef>

#include "runtime/native/init/mount_plan.h"

namespace paddock::init {

// What init opened before it gave up the caller's identity (which may reach paths the sandbox
// user cannot), and before the staging tmpfs could cover anything.
struct MountSources {
  const int* bind_fds = nullptr;  // detached mount trees (open_tree) of the user binds, by slot
  std::size_t bind_count = 0;
  const int* layer_fds = nullptr;  // O_PATH directories of an image's layers, top first
  std::size_t layer_count = 0;
};

// Applies `plan` in the calling process (the sandbox's init, in its own user and mount
// namespaces). Allocation-free. Returns 0, or an errno with *failed_step set to the step's index.
int apply_mount_plan(const MountPlan& plan, const MountSources& sources, int* failed_step);

}  // namespace paddock::init
