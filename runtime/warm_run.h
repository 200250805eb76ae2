#pragma once

// A warm run: a call's plan carried out in a sandbox that was set up before the call came (a
// session opened from the call's shape and never used), so that the call pays only for its
// program. The sandbox is the one a cold run of the same shape and plan would get: the shape
// holds everything that makes the sandbox (mounts, image, user, limits, network, filter, the
// language's support files), and the plan brings the rest (code, its files, steps,
// environment, stdin, output collection) when it runs. Nothing of a call is in the sandbox
// before then, and its timer starts with its first step.

#include <memory>
#include <optional>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/run_plan.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_shape.h"
#include "runtime/session.h"
#include "runtime/warm_interpreter.h"

namespace paddock::runtime {

// Whether `plan` can run in a warm sandbox of `shape`: not when its first step needs a network
// the sandbox does not have (an installer), when its stdin is a host path, when it starts
// elsewhere than the work directory, or when it writes a file with a mode other than 0644 (a
// session writes only those).
bool runs_warm(const SandboxShape& shape, const RunPlan& plan);

// A warm sandbox of `shape`: a session of the backend, with the shape's support files written
// into it, and no environment of a call; with `interpreter` started in it and ready, where the
// backend can (Session::park; one that cannot keeps the sandbox plain).
core::Result<std::unique_ptr<Session>> open_warm(
    Backend& backend, const SandboxShape& shape,
    const std::optional<WarmInterpreter>& interpreter = {});

// Runs `plan` in `sandbox`, opened by open_warm of the plan's shape and unused since: its files
// written with its first step (Session::exec_with_files), then its steps under one wall timer,
// its output collected, as a cold run would. The sandbox is not to be used again.
core::Result<RunResult> run_warm(Session& sandbox, const RunPlan& plan, RunObserver& observer);

}  // namespace paddock::runtime
