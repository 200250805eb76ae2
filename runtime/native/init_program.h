#pragma once

// paddock's side of paddock-init (init_main.cc): where the program is, and the plan handed to
// it in a memfd.

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/native/child.h"

namespace paddock {

// An O_PATH fd of paddock-init, opened for each sandbox (a long-lived server keeps no fd):
// beside this executable (how paddock is installed and how scripts/test copies it), else where
// this build put it.
Result<UniqueFd> open_init_program();

// The plan, encoded into a sealed memfd that paddock-init reads from offset 0.
Result<UniqueFd> plan_memfd(const ChildPlan& plan);

}  // namespace paddock
