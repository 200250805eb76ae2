#pragma once

// A session's live interpreter: started with the session when the language's policy names a
// kernel and the backend and root file system have one, and described the same way by every
// caller (mcp/interpreter_content.h turns the description into a tool's result).

#include <string>

#include <memory>

#include "app/secret_mask.h"
#include "app/session_registry.h"
#include "app/warm_pool.h"
#include "runtime/live_kernel.h"
#include "runtime/session.h"

namespace paddock::app {

// How long a kernel may take to become ready (an R kernel on a loaded machine).
inline constexpr double kKernelReadySeconds = 60;

// Starts the session's interpreter, or records why it has none (RunAccess::set_not_live):
// `wanted` false when the caller asked for a session without one. Under its run_mutex (`run`).
// What the kernel said when it failed is masked with `secrets` (a kernel's log may print them).
void start_interpreter(SessionEntry::RunAccess& run, bool wanted, const SecretMask& secrets);

// A live session's sandbox with its kernel started and ready, made before the create_session
// that takes it (the server's kernel pool): a session that opens at once.
struct ReadyKernel {
  std::unique_ptr<runtime::Session> session;
  std::unique_ptr<runtime::LiveKernel> kernel;  // after `session`, so that it goes first
  // Its sandbox ended, or its kernel did (killed while it waited): the bridge waits for a
  // command and would find out only at the first cell, which would then say the state was lost.
  // A live session runs two processes between cells, the bridge and its kernel.
  bool ended() {
    if (session->ended()) return true;
    auto usage = session->usage();
    return !usage || usage->processes < kIdleProcesses;
  }
  static constexpr std::uint32_t kIdleProcesses = 2;
};
using KernelPool = BasicWarmPool<ReadyKernel>;

// One line for a tool's text: "live: variables persist between calls (python3 kernel)" or why not.
std::string interpreter_line(const SessionEntry& entry);

}  // namespace paddock::app
