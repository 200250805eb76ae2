#pragma once

#include "core/result.h"
#include "sandbox_spec.h"

namespace paddock {

// Checks a spec before anything is created: every problem a user can fix, as one clear line.
Status validate_spec(const SandboxSpec& spec);

}  // namespace paddock
