#include "runtime/warm_run.h"

#include "runtime/step_runner.h"

namespace paddock::runtime {

bool runs_warm(const SandboxShape& shape, const RunPlan& plan) {
  if (plan.networked_steps > 0 || plan.stdin_path || !plan.cwd.empty()) return false;
  for (const auto* files : {&shape.support_files, &plan.files, &plan.files_after_install}) {
    for (const auto& file : *files) {
      if (file.mode != 0644) return false;
    }
  }
  return true;
}

core::Result<std::unique_ptr<Session>> open_warm(
    Backend& backend, const SandboxShape& shape,
    const std::optional<WarmInterpreter>& interpreter) {
  // The environment comes with each command, so that a waiting sandbox holds none of the values
  // passed through from the server's own (which may be secrets).
  auto sandbox = backend.open_session(shape, RunPlan{});
  if (!sandbox) return sandbox.error();
  for (const auto& file : shape.support_files) {
    if (auto wrote = (*sandbox)->write_file(file.path, file.content); !wrote) return wrote.error();
  }
  // A backend that parks no interpreter leaves the sandbox without one: the call runs cold in it.
  InterpreterParking* parking = (*sandbox)->parking();
  if (interpreter && parking != nullptr) {
    if (auto parked = parking->park(*interpreter); !parked && parked.error().code != ENOTSUP) {
      return parked.error();
    }
  }
  return sandbox;
}

core::Result<RunResult> run_warm(Session& sandbox, const RunPlan& plan, RunObserver& observer) {
  StepSandbox steps;
  // The call's files come with its first step.
  steps.exec = [&sandbox](const ExecRequest& exec, const std::vector<SandboxFile>& files,
                          RunObserver& watching) {
    return sandbox.exec_with_files(files, exec, watching);
  };
  steps.write_file = [&sandbox](const SandboxFile& file) {
    return sandbox.write_file(file.path, file.content);
  };
  steps.stdin_fd = plan.stdin_fd;
  return run_steps(plan, steps, observer);
}

}  // namespace paddock::runtime
