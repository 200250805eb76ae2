#pragma once

#include "core/result.h"
#include "runtime/sandbox_spec.h"

namespace paddock {

// Checks a spec before anything is created: every problem a user can fix, as one clear line.
// A session's spec has no command: commands come one by one later.
Status validate_spec(const SandboxSpec& spec, bool session = false);

}  // namespace paddock
