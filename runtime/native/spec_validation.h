#pragma once

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock {

// Checks a shape and a plan before the native backend creates anything: what every backend
// checks (validate_sandbox), then what only this one needs (host /etc entries, image layers
// from its store, the trust bundle and binds that init opens on the host).
Status validate_spec(const SandboxShape& shape, const RunPlan& plan, bool session = false);

}  // namespace paddock
