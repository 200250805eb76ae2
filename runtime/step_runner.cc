#include "runtime/step_runner.h"

#include <algorithm>
#include <chrono>

#include "runtime/output_capture.h"

namespace paddock {

StepPlan steps_of(const SandboxSpec& spec) {
  StepPlan plan;
  plan.steps = spec.prelude;
  plan.steps.push_back(spec.argv);
  plan.networked = spec.networked_prelude;
  plan.installer_allowed_hosts = spec.installer_allowed_hosts;
  plan.files_after_install = spec.files_after_install;
  plan.wall_seconds = spec.limits.wall_seconds;
  plan.output_bytes = spec.limits.output_bytes;
  plan.collect = spec.collect;
  return plan;
}

Result<RunResult> run_steps(const StepPlan& plan, const StepSandbox& sandbox,
                            RunObserver& observer) {
  auto started = std::chrono::steady_clock::now();
  std::string earlier_output;  // what the installer and compiler said, shown before the run's
  Result<RunResult> last = invalid_input("nothing to run");
  for (std::size_t step = 0; step < plan.steps.size(); ++step) {
    bool program = step + 1 == plan.steps.size();
    if (step == plan.networked) {
      if (plan.networked > 0 && sandbox.end_installers_network) {
        if (auto ended = sandbox.end_installers_network(); !ended) return ended.error();
      }
      for (const auto& file : plan.files_after_install) {
        if (auto wrote = sandbox.write_file(file); !wrote) return wrote.error();
      }
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ExecRequest exec;
    exec.argv = plan.steps[step];
    exec.env = plan.env;
    exec.stdin_fd = program ? plan.stdin_fd : -1;
    exec.wall_seconds = std::max(0.001, plan.wall_seconds - elapsed);
    exec.output_bytes = plan.output_bytes;
    exec.stdout_to_stderr = !program;
    // A result that ends in the installer's step says the installer had the network.
    exec.network = step < plan.networked;
    if (exec.network) exec.allowed_hosts = plan.installer_allowed_hosts;
    if (program) exec.collect = plan.collect;
    last = sandbox.exec(exec, observer);
    if (!last) return last;
    last->step = static_cast<int>(step);
    bool succeeded = last->outcome == Outcome::kExited && last->exit_code == 0;
    if (program || !succeeded) break;
    earlier_output += shown_text(last->stderr_data);
  }
  if (!last) return last;
  put_in_front(last->stderr_data, earlier_output);
  last->duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  return last;
}

}  // namespace paddock
