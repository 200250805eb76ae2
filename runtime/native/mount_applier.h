#pragma once

#include "native/mount_plan.h"

namespace paddock {

// Applies `plan` in the calling process (the sandbox's init, in its own user and mount
// namespaces). Allocation-free. Returns 0, or an errno with *failed_step set to the step's index.
int apply_mount_plan(const MountPlan& plan, int* failed_step);

}  // namespace paddock
