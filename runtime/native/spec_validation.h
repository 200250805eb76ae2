#pragma once

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

// Checks a shape and a plan before the native backend creates anything: what every backend
// checks (validate_sandbox), then what only this one needs (host /etc entries, image layers
// from its store, the trust bundle and binds that init opens on the host).
core::Status validate_spec(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                           bool session = false);

}  // namespace paddock::native
