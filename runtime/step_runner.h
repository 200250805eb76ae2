#pragma once

// The steps of one RunPlan ([install] [compile] program) in a sandbox that stays: a session's
// code call, a warm sandbox's call, and a container backend's one-off run (a container is a
// session with one call). Each step is one command; the first that does not exit 0 ends the
// run, and the result says which step that was. The native backend's one-off runs do the same
// inside the sandbox, in paddock-init (runtime/native/init/child.cc), from the same RunPlan.

#include <functional>
#include <vector>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/run_plan.h"
#include "runtime/session.h"

namespace paddock::runtime {

// What running a step means for the sandbox at hand.
struct StepSandbox {
  // One step. `files` are the plan's files that must be there before it (given with the first
  // step only): the sandbox writes them first, or sends them with the command.
  std::function<core::Result<RunResult>(const ExecRequest&, const std::vector<SandboxFile>& files,
                                        RunObserver&)>
      exec;
  std::function<core::Status(const SandboxFile&)> write_file;
  // Called once, before the first step without the installer's network (may be empty).
  std::function<core::Status()> end_installers_network;
  int stdin_fd = -1;  // the program's stdin as this sandbox has it; the other steps read nothing
};

// Runs the plan's steps in order under its one wall timer. An installer's and a compiler's
// output is shown on stderr (stdout is the program's), and the result's stderr holds every
// step's, in order; its duration is the whole run's. The plan's files come with the first step,
// its files_after_install too, or, after an installer, before the first step after it.
core::Result<RunResult> run_steps(const RunPlan& plan, const StepSandbox& sandbox,
                                  RunObserver& observer);

}  // namespace paddock::runtime
