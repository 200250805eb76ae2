#pragma once

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock {

// Checks a shape and a plan before anything is created: every problem a user can fix, as one
// clear line. A session's plan has no steps: commands come one by one later.
Status validate_spec(const SandboxShape& shape, const RunPlan& plan, bool session = false);

}  // namespace paddock
