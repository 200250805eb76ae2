#include "runtime/warm_run.h"

#include <utility>

#include "runtime/step_runner.h"

namespace paddock {

SandboxSpec sandbox_shape(const SandboxSpec& spec) {
  SandboxSpec shape = spec;
  shape.argv.clear();
  shape.prelude.clear();
  // The language's support files are every call's: the sandbox has them before its call comes.
  std::erase_if(shape.files, [](const SandboxFile& file) { return !file.support; });
  shape.files_after_install.clear();
  shape.collect = {};
  // The environment comes with each command, so that a waiting sandbox holds none of the values
  // passed through from the server's own (which may be secrets).
  shape.env.clear();
  shape.stdin_path.reset();
  // It runs no installer (runs_warm), so it is not made ready for one (no proxy for one, no
  // fence): a cold run without an install step is not either.
  shape.installer_allowed_hosts.clear();
  shape.session_networking = false;
  shape.stdin_fd = -1;
  // Each command has its own wall timer and the sandbox none (a session's spec needs one that is
  // valid, which nothing reads).
  shape.limits.wall_seconds = 1;
  return shape;
}

bool runs_warm(const SandboxSpec& spec) {
  if (spec.networked_prelude > 0 || spec.stdin_path) return false;
  for (const auto* files : {&spec.files, &spec.files_after_install}) {
    for (const auto& file : *files) {
      if (file.mode != 0644) return false;
    }
  }
  return true;
}

namespace {

// The call's own files: what its shape left out.
std::vector<SandboxFile> call_files(const SandboxSpec& spec) {
  std::vector<SandboxFile> files;
  for (const auto& file : spec.files) {
    if (!file.support) files.push_back(file);
  }
  return files;
}

}  // namespace

Result<std::unique_ptr<Session>> open_warm(Backend& backend, const SandboxSpec& shape) {
  auto sandbox = backend.open_session(shape);
  if (!sandbox) return sandbox.error();
  for (const auto& file : shape.files) {
    if (!file.support) continue;
    if (auto wrote = (*sandbox)->write_file(file.path, file.content); !wrote) return wrote.error();
  }
  return sandbox;
}

Result<RunResult> run_warm(Session& sandbox, const SandboxSpec& spec, RunObserver& observer) {
  StepPlan plan = steps_of(spec);
  plan.env = spec.env;
  plan.stdin_fd = spec.stdin_fd;
  StepSandbox steps;
  // The call's files come with its first step.
  steps.exec = [&sandbox, files = call_files(spec)](const ExecRequest& exec,
                                                    RunObserver& watching) mutable {
    return sandbox.exec_with_files(std::exchange(files, {}), exec, watching);
  };
  steps.write_file = [&sandbox](const SandboxFile& file) {
    return sandbox.write_file(file.path, file.content);
  };
  return run_steps(plan, steps, observer);
}

}  // namespace paddock
