#include "runtime/step_runner.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "runtime/output_capture.h"
#include "runtime/wall_timer.h"

namespace paddock::runtime {

core::Result<RunResult> run_steps(const RunPlan& plan, const StepSandbox& sandbox,
                                  RunObserver& observer) {
  auto started = WallClock::now();
  // One timer for all the steps: each gets what the ones before it left.
  auto deadline = deadline_after(plan.wall_seconds, started);
  std::string earlier_output;  // what the installer and compiler said, shown before the run's
  // The plan's files come with the first step, and so do the caller's when no installer comes
  // first: in that order, as a cold run writes them.
  std::vector<SandboxFile> first_files = plan.files;
  if (plan.networked_steps == 0) {
    first_files.insert(first_files.end(), plan.files_after_install.begin(),
                       plan.files_after_install.end());
  }
  core::Result<RunResult> last = core::invalid_input("nothing to run");
  for (std::size_t step = 0; step < plan.steps.size(); ++step) {
    bool program = step + 1 == plan.steps.size();
    if (step == plan.networked_steps && plan.networked_steps > 0) {
      if (sandbox.end_installers_network) {
        if (auto ended = sandbox.end_installers_network(); !ended) return ended.error();
      }
      for (const auto& file : plan.files_after_install) {
        if (auto wrote = sandbox.write_file(file); !wrote) return wrote.error();
      }
    }
    ExecRequest exec;
    exec.argv = plan.steps[step];
    exec.env = plan.env;
    exec.stdin_fd = program ? sandbox.stdin_fd : -1;
    // Never 0: a step that starts gets a moment, and its timer still ends it.
    exec.wall_seconds = std::max(0.001, seconds_until(deadline));
    exec.output_bytes = plan.output_bytes;
    exec.stdout_to_stderr = !program;
    // A result that ends in the installer's step says the installer had the network.
    exec.network = step < plan.networked_steps;
    if (exec.network) exec.allowed_hosts = plan.installer_allowed_hosts;
    if (program) exec.collect = plan.collect;
    last = sandbox.exec(exec, std::exchange(first_files, {}), observer);
    if (!last) return last;
    last->step = static_cast<int>(step);
    bool succeeded = last->outcome == Outcome::kExited && last->exit_code == 0;
    if (program || !succeeded) break;
    earlier_output += shown_text(last->stderr_data);
  }
  if (!last) return last;
  put_in_front(last->stderr_data, earlier_output);
  last->duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(WallClock::now() - started).count();
  return last;
}

}  // namespace paddock::runtime
