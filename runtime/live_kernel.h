#pragma once

// A live session's interpreter: a Jupyter kernel inside the session's sandbox, so that variables,
// imports and loaded data survive between calls. Paddock does not speak the Jupyter protocol
// across the sandbox boundary: a bridge (kernel/kernel_bridge.py, jupyter_client) runs as the
// session's resident process, at the program's privilege, drives the kernel over unix sockets in
// the sandbox's /tmp, and tells paddock what happened as JSON lines. Everything the bridge says
// is as untrusted as the program's own output: lines are bounded, parsed without exceptions and
// checked field by field.
//
// The messages, paddock -> bridge: {"code", "timeout", "silent"?}, {"interrupt": true} while a
// cell runs. Bridge -> paddock: {"ready": {kernel, implementation, language,
// language_version}} or {"failed": why}; during a cell {"stream", "text"}, {"display": {mime:
// data}, "result": bool}, {"omitted": {mime, bytes}}, {"error": {ename, evalue, traceback}};
// and last {"done": {status: ok|error|timed_out|cancelled|lost, execution_count?, state_lost?}}.
// A bridge whose kernel was lost says state_lost and ends: paddock kills everything of the
// session and starts a new bridge (a restart is the same, on request).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/run_result.h"
#include "runtime/session.h"

namespace paddock::runtime {

// What a language's policy says of its kernel (language/policy.h reads it).
struct KernelConfig {
  std::string name;                    // the kernelspec's name: "python3", "ir"
  std::vector<std::string> env;        // "K=V" over the session's, for the kernel only
  std::vector<std::string> unset_env;  // names of the session's environment the kernel lacks
  std::string startup;                 // run silently once the kernel is ready
  std::string after_install;           // run silently after an install, so the library imports
  double grace_seconds = 2;            // after an interrupt, before the kernel is restarted
};

// What get_session shows of the interpreter.
struct KernelStatus {
  std::string state;           // "idle", "busy", "starting", or "dead" (could not restart)
  std::string kernel;          // the kernelspec
  std::string implementation;  // "ipython", "IRkernel"
  std::string language_version;
  int cells = 0;          // run since the session began
  int restarts = 0;       // lost states, on purpose or not
  std::string last_loss;  // why the state was last lost
};

struct CellRequest {
  std::string code;
  double timeout_seconds = kDefaultWallSeconds;
  std::uint64_t output_bytes = 1u << 20;  // kept per stream, start and end
  std::uint32_t max_figures = 20;
  std::uint64_t max_figure_bytes = 4u << 20;  // all figures of the cell together
  bool silent = false;                        // paddock's own code: no execution count, no history
};

class LiveKernel {
 public:
  // Starts the bridge and its kernel in `session` and waits until the kernel answers. The error
  // names the reason (no kernelspec, no jupyter_client, the kernel's own complaint).
  static core::Result<std::unique_ptr<LiveKernel>> start(Session& session, KernelConfig config,
                                                         double ready_seconds);
  ~LiveKernel();
  LiveKernel(const LiveKernel&) = delete;
  LiveKernel& operator=(const LiveKernel&) = delete;

  // Runs one cell. What the code did, an error included, is a result (RunResult::cell); only a
  // failure of the machinery (a bridge that cannot be restarted) is an error. A cell past its
  // timeout or cancelled is interrupted; a kernel that does not recover, dies, or takes its
  // bridge with it is replaced and the result says state_lost. Processes the cell started are
  // killed when it ends.
  core::Result<RunResult> execute(const CellRequest& request, RunObserver& observer);
  // A fresh interpreter on purpose; the files stay.
  core::Status restart();
  // After a library install: makes the new library importable without a restart.
  core::Status refresh_after_install();
  [[nodiscard]] KernelStatus status() const;

 private:
  LiveKernel(ResidentHost& session, KernelConfig config)
      : session_(session), config_(std::move(config)) {}
  core::Status launch(double ready_seconds, bool with_startup = true);
  // Runs the policy's start-up code silently in a new kernel.
  core::Status run_startup(double seconds);
  // Kills the bridge and every other process of the session, then launches a new one.
  core::Status replace(const std::string& why, bool with_startup = true);
  void set_state(std::string state);

  ResidentHost& session_;  // the session's ability to keep the kernel's bridge resident
  KernelConfig config_;
  ResidentProcess bridge_;
  std::string pending_;  // what the bridge sent after the last whole line
  mutable std::mutex status_mutex_;
  KernelStatus status_;
  friend class BridgeReader;
};

}  // namespace paddock::runtime
