#pragma once

#include <cstddef>

#include "native/mount_plan.h"

namespace paddock {

// Applies `plan` in the calling process (the sandbox's init, in its own user and mount
// namespaces). `bind_fds[slot]` are detached mount trees (open_tree) of the user bind sources,
// taken before the staging tmpfs could cover them. Allocation-free. Returns 0, or an errno with
// *failed_step set to the step's index.
int apply_mount_plan(const MountPlan& plan, const int* bind_fds, std::size_t bind_count,
                     int* failed_step);

}  // namespace paddock
