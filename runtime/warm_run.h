#pragma once

// A warm run: a call's spec carried out in a sandbox that was set up before the call came (a
// session opened from the spec's shape and never used), so that the call pays only for its
// program. The sandbox is the one a cold run of the same spec would get: the shape holds every
// part of the spec that makes the sandbox (mounts, image, user, limits, network, filter), and
// the call brings the rest (code, its files, steps, environment, stdin, output collection) when it
// runs. Nothing of a call is in the sandbox before then, and its timers start with its first
// step.

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_spec.h"
#include "runtime/session.h"

namespace paddock {

// The parts of `spec` that make its sandbox: the call's own parts cleared. Two specs with equal
// shapes run in interchangeable sandboxes.
SandboxSpec sandbox_shape(const SandboxSpec& spec);

// Whether `spec` can run in a warm sandbox of its shape: not when its first step needs a
// network the sandbox does not have (an installer), when its stdin is a host path, or when it
// writes a file with a mode other than 0644 (a session writes only those).
bool runs_warm(const SandboxSpec& spec);

// A warm sandbox of `shape`: a session of the backend, with the shape's files (the language's
// support files) written into it.
Result<std::unique_ptr<Session>> open_warm(Backend& backend, const SandboxSpec& shape);

// Runs `spec` in `sandbox`, opened by open_warm(sandbox_shape(spec)) and unused since: the rest
// of its files written with its first step (Session::exec_with_files), then its prelude and
// program under one wall timer, its output collected, as a cold run would. The sandbox is not to
// be used again.
Result<RunResult> run_warm(Session& sandbox, const SandboxSpec& spec, RunObserver& observer);

}  // namespace paddock
