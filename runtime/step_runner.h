#pragma once

// The steps of one run ([install] [compile] program) in a sandbox that stays: a session's code
// call, and a container backend's one-off run (a container is a session with one call). Each
// step is one command; the first that does not exit 0 ends the run, and the result says which
// step that was. The native backend's one-off runs do the same inside the sandbox, in
// paddock-init (runtime/native/child.cc), from the same SandboxSpec fields.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/session.h"

namespace paddock {

struct StepPlan {
  std::vector<std::vector<std::string>> steps;  // the program's command last
  // The first this many steps (the installer) get the installer's network; the caller's files
  // are written only after them, so that no installer ever sees them.
  std::size_t networked = 0;
  // Those steps reach out only through the sandbox's egress proxy, to these destinations (the
  // installer's package index, SandboxSpec::installer_allowed_hosts); empty: by the network the
  // sandbox gives them.
  std::vector<std::string> installer_allowed_hosts;
  std::vector<SandboxFile> files_after_install;
  std::vector<std::string> env;  // "K=V" on top of the sandbox's, for every step
  int stdin_fd = -1;             // the program's; the other steps read nothing
  double wall_seconds = 30;      // for all the steps together
  std::uint64_t output_bytes = 1ull << 20;
  OutputCollection collect;  // after the program
};

// The steps of a spec: its prelude, then its argv.
StepPlan steps_of(const SandboxSpec& spec);

// What running a step means for the sandbox at hand.
struct StepSandbox {
  std::function<Result<RunResult>(const ExecRequest&, RunObserver&)> exec;
  std::function<Status(const SandboxFile&)> write_file;
  // Called once, before the first step without the installer's network (may be empty).
  std::function<Status()> end_installers_network;
};

// Runs the plan's steps in order. An installer's and a compiler's output is shown on stderr
// (stdout is the program's), and the result's stderr holds every step's, in order; its duration
// is the whole run's.
Result<RunResult> run_steps(const StepPlan& plan, const StepSandbox& sandbox,
                            RunObserver& observer);

}  // namespace paddock
