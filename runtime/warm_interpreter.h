#pragma once

// A language's interpreter started in a warm sandbox before its call (a policy's "warm"): the
// call's program, started early and exactly as a cold run starts it, with a loader where the
// program's source will be. The loader imports the policy's preload list, says it is ready, and
// waits for exactly one call (Session::park). The call brings its streams and its environment,
// and its files replace the loader; the loader says it took the call (so that one killed just
// before is known to have run nothing of it), and its code then runs in that interpreter, which
// no other call ever used. The loader's side is the language's
// (policies/support/python/warm_start.py).

#include <string>
#include <vector>

#include "runtime/run_plan.h"
#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct WarmInterpreter {
  std::vector<std::string> program;  // the program step it stands for: python3 -u main.py
  SandboxFile loader;                // at the program's source path, until the call's replaces it
  // What it starts with: the language's own variables (a plan's env without the call's values:
  // no secret, nothing the caller set).
  std::vector<std::string> env;
  // Variables that change how the interpreter starts (NAME, or PREFIX* for every name that
  // begins so): a call that gives one of them, or one of `env`'s, another value runs cold.
  std::vector<std::string> startup_variables;
  // Variables only the waiting interpreter starts with ("K=V", e.g. NODE_OPTIONS to load the
  // loader before the program): the call's environment replaces them.
  std::vector<std::string> start_env;
  // Where the interpreter cannot take descriptors (node): the call's streams are made when it
  // starts (stdin /dev/null, as a cold run's without stdin), and the call comes on fd 3, which
  // the loader reads and closes. It takes calls without stdin only.
  bool streams_from_start = false;
  // With streams_from_start, where the interpreter can open its channel only by name, as a file
  // of /proc/self/fd (R): the call comes on a pipe at fd 4, which paddock closes after it, and the
  // loader answers on one at fd 5. fd 3 stays free, for a program that keeps its script open.
  bool call_on_pipes = false;

  bool operator==(const WarmInterpreter&) const = default;
};

// Whether `plan` can run on `interpreter`: its only step is the interpreter's program, it
// starts the interpreter with the same start-up variables (and sets none of start_env's), and
// it brings no stdin where the streams were made at the start.
bool fits(const WarmInterpreter& interpreter, const RunPlan& plan);

// Whether `name` is one of `patterns` (NAME, or PREFIX*).
bool matches_variable(const std::vector<std::string>& patterns, const std::string& name);

}  // namespace paddock::runtime
