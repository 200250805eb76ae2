#include "app/live_session.h"

namespace paddock::app {

namespace {

void not_live(SessionEntry& entry, std::string why) {
  entry.not_live = std::move(why);
  entry.interpreter.store(SessionEntry::Interpreter::kNotLive, std::memory_order_release);
}

}  // namespace

const LiveKernel* live_kernel(const SessionEntry& entry) {
  return entry.interpreter.load(std::memory_order_acquire) == SessionEntry::Interpreter::kLive
             ? entry.kernel.get()
             : nullptr;
}

std::string not_live_reason(const SessionEntry& entry) {
  return entry.interpreter.load(std::memory_order_acquire) == SessionEntry::Interpreter::kPending
             ? "the interpreter is starting"
             : entry.not_live;
}

void start_interpreter(SessionEntry& entry, bool wanted, const SecretMask& secrets) {
  const LanguagePolicy& policy = *entry.policy;
  if (!wanted) return not_live(entry, "created with live: false; each call runs as a new process");
  if (policy.kernel.name.empty()) {
    return not_live(entry, policy.name +
                               " has no interpreter that stays between calls; files and "
                               "installed libraries persist, each call is a new process");
  }
  auto started = LiveKernel::start(*entry.session, policy.kernel, kKernelReadySeconds);
  if (!started && started.error().code == ENOTSUP) {
    return not_live(entry, started.error().message);  // the backend's own words say it all
  }
  if (!started) {
    return not_live(entry, secrets.apply(started.error().message) +
                               "; each call runs as a new process instead");
  }
  entry.kernel = std::move(*started);
  entry.interpreter.store(SessionEntry::Interpreter::kLive, std::memory_order_release);
}

void adopt_interpreter(SessionEntry& entry, std::unique_ptr<LiveKernel> kernel) {
  entry.kernel = std::move(kernel);
  entry.interpreter.store(SessionEntry::Interpreter::kLive, std::memory_order_release);
}

std::string interpreter_line(const SessionEntry& entry) {
  const LiveKernel* kernel = live_kernel(entry);
  if (kernel == nullptr) return "not live: " + not_live_reason(entry);
  KernelStatus status = kernel->status();
  std::string line = "live: variables, functions and imports persist between calls (" +
                     status.kernel + " kernel, " + status.state;
  if (status.restarts > 0) {
    line +=
        ", restarted " + std::to_string(status.restarts) + "x, last because " + status.last_loss;
  }
  return line + ")";
}

}  // namespace paddock::app
