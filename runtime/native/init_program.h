#pragma once

// paddock's side of paddock-init (init_main.cc): where the program is, and the plan handed to
// it in a memfd.

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/native/init/child.h"

namespace paddock::native {

// An O_PATH fd of paddock-init, opened for each sandbox (a long-lived server keeps no fd):
// beside this executable (the build folder, scripts/test's copy and tests/CMakeLists.txt's copy
// beside the test binaries all lay it out so), else in the installed tree's lib/paddock
// (core/companion_program.h).
core::Result<core::UniqueFd> open_init_program();

// The memfd that carries the plan, made before clone so that the child gets it, and written and
// sealed (write_plan) while the child execs paddock-init, which reads it once paddock says go.
core::Result<core::UniqueFd> plan_memfd();
core::Status write_plan(int memfd, const init::ChildPlan& plan);

}  // namespace paddock::native
