#include "runtime/live_kernel.h"

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "runtime/kernel/kernel_bridge_source.h"
#include "runtime/kernel_messages.h"
#include "runtime/wall_timer.h"

namespace paddock::runtime {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// A line longer than this is not something the bridge sends (it caps displays at 8 MiB, and
// base64 and JSON escaping add a third): the bridge is broken or a cell forged it.
constexpr std::size_t kMaxLine = 24u << 20;
// What the bridge may take beyond a cell's timeout and grace: restarting a lost kernel.
constexpr double kRestartAllowance = 30;

std::string to_line(const json& message) {
  return message.dump() + "\n";
}

// For paddock's own code in the kernel (start-up, after an install): nobody listens.
class SilentObserver final : public RunObserver {};

}  // namespace

// Reads the bridge's lines: whole ones, bounded, until a deadline.
class BridgeReader {
 public:
  explicit BridgeReader(LiveKernel& kernel) : kernel_(kernel) {}

  // The next message; nothing at the deadline; an error when the bridge is gone or broken.
  // `extra_fd`, when not -1, is watched too: `extra_ready` says it became readable.
  core::Result<std::optional<json>> next(Clock::time_point deadline, int extra_fd = -1,
                                         bool* extra_ready = nullptr) {
    for (;;) {
      if (auto line = take_line()) {
        if (line->size() > kMaxLine)
          return core::Error{EPROTO, "the kernel bridge sent an overlong line"};
        auto message = parse_bridge_line(*line);
        if (!message) continue;  // a stray print
        return message;
      }
      if (kernel_.pending_.size() > kMaxLine) {
        return core::Error{EPROTO, "the kernel bridge sent an overlong line"};
      }
      if (Clock::now() >= deadline) return std::optional<json>();
      pollfd watched[2] = {{kernel_.bridge_.output.get(), POLLIN, 0}, {extra_fd, POLLIN, 0}};
      int ready = poll(watched, extra_fd >= 0 ? 2 : 1, poll_ms_until(deadline));
      if (ready < 0 && errno != EINTR) return core::system_error("waiting for the kernel bridge");
      if (extra_fd >= 0 && (watched[1].revents & POLLIN) != 0 && extra_ready != nullptr) {
        *extra_ready = true;
        return std::optional<json>();
      }
      if (watched[0].revents == 0) continue;
      char buffer[65536];
      ssize_t got = read(kernel_.bridge_.output.get(), buffer, sizeof buffer);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) return core::Error{EPIPE, "the kernel bridge ended"};
      kernel_.pending_.append(buffer, static_cast<std::size_t>(got));
    }
  }

 private:
  std::optional<std::string> take_line() {
    auto end = kernel_.pending_.find('\n');
    if (end == std::string::npos) return std::nullopt;
    std::string line = kernel_.pending_.substr(0, end);
    kernel_.pending_.erase(0, end + 1);
    return line;
  }
  LiveKernel& kernel_;
};

namespace {

// Writes a whole line to the bridge's stdin before the deadline.
core::Status send_line(int fd, const std::string& line, Clock::time_point deadline) {
  for (std::size_t done = 0; done < line.size();) {
    ssize_t wrote = write(fd, line.data() + done, line.size() - done);
    if (wrote > 0) {
      done += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno != EAGAIN) return core::system_error("writing to the kernel bridge");
    if (Clock::now() >= deadline) {
      return core::Error{ETIMEDOUT, "the kernel bridge does not read its input"};
    }
    pollfd out{fd, POLLOUT, 0};
    poll(&out, 1, poll_ms_until(deadline));
  }
  return {};
}

}  // namespace

core::Result<std::unique_ptr<LiveKernel>> LiveKernel::start(Session& session, KernelConfig config,
                                                            double ready_seconds) {
  ResidentHost* resident = session.resident();
  if (resident == nullptr) {
    return core::Error{
        ENOTSUP,
        "this backend keeps no interpreter between calls: each call of a session runs "
        "as a new process (only the native backend has live sessions)"};
  }
  std::unique_ptr<LiveKernel> kernel(new LiveKernel(*resident, std::move(config)));
  kernel->status_.kernel = kernel->config_.name;
  if (auto launched = kernel->launch(ready_seconds); !launched) {
    resident->kill_resident();
    return launched.error();
  }
  return kernel;
}

LiveKernel::~LiveKernel() {
  // Closing its stdin ends the bridge, which shuts its kernel down; the session's close kills
  // whatever is left.
  bridge_.input.reset();
  bridge_.output.reset();
}

void LiveKernel::set_state(std::string state) {
  std::lock_guard lock(status_mutex_);
  status_.state = std::move(state);
}

KernelStatus LiveKernel::status() const {
  std::lock_guard lock(status_mutex_);
  return status_;
}

core::Status LiveKernel::launch(double ready_seconds, bool with_startup) {
  set_state("starting");
  pending_.clear();
  ExecRequest request;
  std::string grace = std::to_string(config_.grace_seconds);
  request.argv = {"python3", "-I", "-c", kernel_bridge_source(), config_.name, grace};
  request.env = config_.env;
  for (const auto& name : config_.unset_env) request.env.push_back(name);  // "NAME": removed
  auto started = session_.start_resident(request);
  if (!started) return started.error();
  bridge_ = std::move(*started);
  BridgeReader reader(*this);
  auto deadline = deadline_after(ready_seconds);
  for (;;) {
    auto message = reader.next(deadline);
    if (!message) return message.error().context("starting the " + config_.name + " kernel");
    if (!*message) {
      return core::Error{ETIMEDOUT, "the " + config_.name + " kernel was not ready within " +
                                        std::to_string(static_cast<int>(ready_seconds)) + " s"};
    }
    const json& said = **message;
    if (said.contains("failed")) {
      return core::Error{ENOENT, "the " + config_.name +
                                     " kernel did not start: " + bridge_string(said, "failed")};
    }
    if (!said.contains("ready")) continue;
    const json& ready = said["ready"];
    {
      std::lock_guard lock(status_mutex_);
      status_.implementation = bridge_string(ready, "implementation");
      status_.language_version = bridge_string(ready, "language_version");
    }
    break;
  }
  if (with_startup) {
    if (auto started_up = run_startup(ready_seconds); !started_up) return started_up;
  }
  set_state("idle");
  return {};
}

core::Status LiveKernel::run_startup(double seconds) {
  if (config_.startup.empty()) return {};
  CellRequest startup{config_.startup, seconds, 64u << 10, 0, 0, true};
  SilentObserver quiet;
  auto ran = execute(startup, quiet);
  if (!ran) return ran.error().context("running the kernel's start-up code");
  return {};
}

core::Status LiveKernel::replace(const std::string& why, bool with_startup) {
  bridge_ = {};
  // Every process of the session but its init, and reaped, before anything new starts: nothing
  // of the old interpreter (a daemon a cell's thread left, in a session of its own) can reach
  // into the new one's private directory while it starts.
  session_.kill_resident();
  {
    std::lock_guard lock(status_mutex_);
    ++status_.restarts;
    status_.last_loss = why;
  }
  if (auto launched = launch(kRestartAllowance, with_startup); !launched) {
    set_state("dead");
    session_.kill_resident();
    return launched.error();
  }
  return {};
}

namespace {

// The cell's outcome from the status its bridge reported: `overran` when the bridge did not
// finish even after the timeout and the grace.
void set_cell_outcome(RunResult& result, const std::string& status, bool overran,
                      bool interrupt_sent) {
  if (status == "timed_out" || (overran && !interrupt_sent)) {
    result.outcome = Outcome::kTimedOut;
  } else if (status == "cancelled" || interrupt_sent) {
    result.outcome = Outcome::kCancelled;
  } else {
    result.outcome = Outcome::kExited;
    result.exit_code = status == "ok" ? 0 : 1;
  }
}

}  // namespace

core::Result<RunResult> LiveKernel::execute(const CellRequest& request, RunObserver& observer) {
  if (status().state == "dead") {
    if (auto revived = replace("the interpreter could not be restarted before"); !revived) {
      return revived.error().context("the session's interpreter is gone");
    }
  }
  set_state("busy");
  auto started = Clock::now();
  RunResult result;
  result.cell = CellReport{};
  observer.on_started(0);
  json command = {
      {"code", request.code}, {"timeout", request.timeout_seconds}, {"silent", request.silent}};
  auto hard_deadline =
      deadline_after(request.timeout_seconds + config_.grace_seconds + kRestartAllowance);
  if (auto sent = send_line(bridge_.input.get(), to_line(command), hard_deadline); !sent) {
    if (auto replaced = replace(sent.error().message); !replaced) return replaced.error();
    result.cell->state_lost = "the kernel bridge stopped reading: " + sent.error().message;
    result.outcome = Outcome::kExited;
    result.exit_code = 1;
    set_state("idle");
    return result;
  }
  BridgeReader reader(*this);
  const CancellationToken* cancellation = observer.cancellation();
  bool interrupt_sent = false;
  CellMessages cell(request, result, observer);
  std::string broken;    // why the bridge itself is to be replaced
  bool overran = false;  // the bridge did not finish even after the timeout and the grace
  for (;;) {
    bool cancelled = false;
    int cancel_fd = cancellation != nullptr && !interrupt_sent ? cancellation->poll_fd() : -1;
    auto message = reader.next(hard_deadline, cancel_fd, &cancelled);
    if (!message) {
      broken = message.error().message;
      break;
    }
    if (cancelled) {
      interrupt_sent = true;
      (void)send_line(bridge_.input.get(), to_line({{"interrupt", true}}), deadline_after(5));
      continue;
    }
    if (!*message) {
      broken = "the kernel bridge did not finish the cell in time";
      overran = true;
      break;
    }
    if (cell.take(**message)) break;
  }
  // Whatever the cell started goes with it; the kernel stays.
  (void)session_.sweep();
  session_.describe_cell(result);
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  CellEnd end = read_cell_end(cell.done());
  if (!broken.empty()) {
    result.cell->state_lost = broken;
    if (auto replaced = replace(broken); !replaced) return replaced.error();
  } else if (const std::string& lost = end.state_lost; !lost.empty()) {
    // The bridge has ended with its kernel. The new one starts only once everything else of
    // the session is gone too (replace): a process a cell left behind could plant code in it.
    // It gets the policy's start-up code, but not after paddock's own silent code was lost,
    // which would otherwise start it again and again.
    result.cell->state_lost = lost;
    if (auto replaced = replace(lost, !request.silent); !replaced) {
      return core::Error{EIO, lost + "; " + replaced.error().message};
    }
  }
  if (end.execution_count) result.cell->execution_count = *end.execution_count;
  set_cell_outcome(result, end.status, overran, interrupt_sent);
  {
    std::lock_guard lock(status_mutex_);
    if (!request.silent) ++status_.cells;
    status_.state = "idle";
  }
  return result;
}

core::Status LiveKernel::restart() {
  // A new bridge and kernel, not a new kernel under the old bridge: only killing everything of
  // the session first gives an interpreter that nothing of the old one reaches.
  return replace("restarted on request");
}

core::Status LiveKernel::refresh_after_install() {
  if (config_.after_install.empty()) return {};
  CellRequest refresh{config_.after_install, 30, 64u << 10, 0, 0, true};
  SilentObserver quiet;
  auto ran = execute(refresh, quiet);
  if (!ran) return ran.error();
  if (ran->cell && ran->cell->error) {
    return core::Error{EIO,
                       "making the new libraries importable failed: " + ran->cell->error->value};
  }
  return {};
}

}  // namespace paddock::runtime
