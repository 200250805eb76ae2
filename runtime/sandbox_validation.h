#pragma once

// What a shape and a plan must be for any backend to run them, checked before anything is
// created: every problem a caller can fix, as one clear line. The messages name each setting in
// words, not by a flag of one front-end: `paddock run`, an MCP client and a Python caller read
// the same line. What only one backend needs is checked by that backend on top of this (the
// native one's in runtime/native/spec_validation.h).

#include <string>

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock {

// The longest timeout any run may have.
inline constexpr double kLongestWallSeconds = 7 * 24 * 3600;

// A session's plan has no steps: commands come one by one later.
Status validate_sandbox(const SandboxShape& shape, const RunPlan& plan, bool session = false);

// Whether `path` is absolute, with no "." or ".." component and no NUL.
bool is_absolute_clean(const std::string& path);

// Whether `path` is "/" or lies in a directory the sandbox's own system lives in (/proc, /dev,
// /usr, /etc, /bin, /lib...): nothing of the caller's may be put there.
bool is_reserved_path(const std::string& path);

}  // namespace paddock
