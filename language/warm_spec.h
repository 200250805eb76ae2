#pragma once

// The warm interpreter (runtime/warm_interpreter.h) of a language whose policy has one, for the
// sandboxes of one shape: built from the plan of a call that brings nothing (no code, no
// pass-through values, no variables of the caller), so that it holds nothing of any call.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "language/policy.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"
#include "runtime/warm_interpreter.h"

namespace paddock::language {

// None when the policy has no "warm", when its program is not one step (a compiler first), or
// when the shape has a CPU-time limit (what the interpreter spends preloading would count
// against the call's). It imports `preload` (checked names only) before its call comes. In the
// loader's text, the last PADDOCK_PRELOAD becomes that list and the last PADDOCK_START_ENV (if
// any) the names of the variables it starts with, each as a JSON array of strings.
std::optional<runtime::WarmInterpreter> warm_interpreter(const LanguagePolicy& policy,
                                                         const runtime::SandboxShape& shape,
                                                         const runtime::RunPlan& empty_call,
                                                         const std::vector<std::string>& preload);

// Whether a call of `code` should take an interpreter that preloaded `preload` (the policy's
// list, or the server's over it): it imports one of `preload_when`'s modules, or of `preload`'s
// top-level ones when the policy names none.
bool wants_preload(const LanguagePolicy& policy, const std::vector<std::string>& preload,
                   const std::string& code);

// Checks a module name for a preload list: dotted identifiers only. The error says how to write
// one.
core::Status check_preload_name(const std::string& name);

}  // namespace paddock::language
