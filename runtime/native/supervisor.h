#pragma once

// Watches a started sandbox from the parent: captures stdout and stderr concurrently with byte
// caps (draining past the cap so the program never blocks on a full pipe), reads the child's
// messages, and kills the whole sandbox (SIGKILL to its init, which takes the PID namespace down
// with it) on timeout or cancellation. Returns once init is reaped and both pipes are closed.

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>

#include "core/unique_fd.h"
#include "net/egress/proxy.h"
#include "runtime/backend.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/sandbox_process.h"

namespace paddock::native {

struct StartedSandbox {
  SandboxProcess init;  // the sandbox's outermost process; killed and reaped if abandoned
  core::UniqueFd stdout_pipe;
  core::UniqueFd stderr_pipe;
  core::UniqueFd channel;
  std::chrono::steady_clock::time_point started_at;
  // Called when init reaches the step boundary (see ChildPlan::pause_before_step); init goes on
  // once it returns.
  std::function<void()> at_step_boundary;
  // A session's init stays after a command: supervision ends with the command (its exit
  // reported, its output closed), and a kill asks init to kill everything but itself.
  bool session = false;
  // The egress proxy that serves the listener init makes (an allowlist run), or null.
  net::egress::EgressProxy* egress = nullptr;
};

struct Supervised {
  bool timed_out = false;
  bool cancelled = false;
  std::optional<init::ChildMessage> setup_failure;  // kSetupFailed or kExecFailed
  std::optional<int> payload_status;                // wait status of the user's program
  // The step (prelude first) that status belongs to; without a status, the last step known to
  // have started.
  int payload_step = 0;
  core::UniqueFd workdir;         // the sandbox's work directory, once it existed
  bool at_step_boundary = false;  // init waits at the step boundary
  int init_status = 0;            // wait status of the sandbox's init
  runtime::CapturedOutput stdout_data;
  runtime::CapturedOutput stderr_data;
  rusage usage{};  // init and every process it reaped
  std::int64_t duration_ms = 0;
  bool init_exited = false;      // in a session: the sandbox itself is gone
  bool command_started = false;  // in a session: init said the command started (kCommandStarted)
  init::RefusedCalls refused;    // what the seccomp filter refused the command (kPayloadExited)
};

Supervised supervise(StartedSandbox& sandbox, const runtime::Limits& limits,
                     runtime::RunObserver& observer);

}  // namespace paddock::native
