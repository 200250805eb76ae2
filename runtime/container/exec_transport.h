#pragma once

// What carries a container backend's commands into its sandbox: Docker's and Podman's exec API
// (docker_exec.h) or Kubernetes' exec over WebSocket. The session serialises its commands, but
// one helper may run from another thread beside a command (usage()), so `run` must allow two
// at once: Kubernetes opens a WebSocket per command, Docker's transport a second connection.
// A transport stops waiting at the deadline or on cancellation; ending what still runs is the
// session's job (container_session.h).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "runtime/backend.h"
#include "runtime/run_result.h"

namespace paddock::container {

struct ExecCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "K=V" on top of the sandbox's
  double wall_seconds = runtime::kDefaultWallSeconds;
  std::uint64_t output_bytes = 1u << 20;  // kept per stream
  bool stdout_to_stderr = false;
  runtime::RunObserver* observer = nullptr;  // output as it comes, and the cancellation token
  // Bytes for the command's stdin, where the transport carries_input(); else it gets none.
  std::string input{};
};

struct ExecOutcome {
  long exit_code = -1;
  bool timed_out = false;
  bool cancelled = false;
  runtime::CapturedOutput out, err;
  std::int64_t duration_ms = 0;
};

class ExecTransport {
 public:
  virtual ~ExecTransport() = default;
  virtual core::Result<ExecOutcome> run(const ExecCommand& command) = 0;
  // Whether run() hands ExecCommand::input to the command's stdin. Kubernetes does, so that
  // file contents and stdin travel in the exec stream and not in its URL, which API server
  // audit logs and proxies record.
  [[nodiscard]] virtual bool carries_input() const { return false; }
  // Takes the sandbox off every network it is on, and makes sure none is left: between an
  // installer that had a network and a program that may have none. A transport that cannot
  // refuses, so that no program keeps a network by a silent no-op.
  [[nodiscard]] virtual core::Status leave_networks() {
    return core::Error{ENOTSUP, "this backend cannot take a sandbox's network away"};
  }
  // The container or pod goes, with everything in it. Idempotent.
  virtual void remove() = 0;
};

// Where a transport puts what a command writes: each stream capped, the observer told.
class OutputSink {
 public:
  OutputSink(ExecOutcome& outcome, const ExecCommand& command)
      : outcome_(outcome), command_(command) {}
  void take(bool is_stderr, std::string_view chunk);

 private:
  ExecOutcome& outcome_;
  const ExecCommand& command_;
};

}  // namespace paddock::container
