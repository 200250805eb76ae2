#include "app/live_session.h"

namespace paddock::app {

void start_interpreter(SessionEntry::RunAccess& run, bool wanted, const SecretMask& secrets) {
  const language::LanguagePolicy& policy = run.entry().policy();
  if (!wanted) return run.set_not_live("created with live: false; each call runs as a new process");
  if (policy.kernel.name.empty()) {
    return run.set_not_live(policy.name +
                            " has no interpreter that stays between calls; files and "
                            "installed libraries persist, each call is a new process");
  }
  auto started =
      runtime::LiveKernel::start(run.entry().session(), policy.kernel, kKernelReadySeconds);
  if (!started && started.error().code == ENOTSUP) {
    return run.set_not_live(started.error().message);  // the backend's own words say it all
  }
  if (!started) {
    return run.set_not_live(secrets.apply(started.error().message) +
                            "; each call runs as a new process instead");
  }
  run.set_live(std::move(*started));
}

std::string interpreter_line(const SessionEntry& entry) {
  const runtime::LiveKernel* kernel = entry.live_kernel();
  if (kernel == nullptr) return "not live: " + entry.not_live_reason();
  runtime::KernelStatus status = kernel->status();
  std::string line = "live: variables, functions and imports persist between calls (" +
                     status.kernel + " kernel, " + status.state;
  if (status.restarts > 0) {
    line +=
        ", restarted " + std::to_string(status.restarts) + "x, last because " + status.last_loss;
  }
  return line + ")";
}

}  // namespace paddock::app
