#pragma once

// A container backend's sandbox as a Session, whatever carries its commands (exec_transport.h):
// every command runs as the sandbox user; one that overruns its time or is cancelled is ended
// by a second command that kills every process of the sandbox user but the container's PID 1
// (kill -KILL -1), and a session does the same after every command, so nothing a command
// started outlives it. Files go in and out through commands as well (session_scripts.h), with
// the native session's rules. Closing removes the container or pod.

#include <memory>
#include <mutex>
#include <string>

#include "runtime/container/exec_transport.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"
#include "runtime/session.h"

namespace paddock::container {

class ContainerSession final : public runtime::Session {
 public:
  // `isolation` is what every result reports: the backend knows what it enforces.
  ContainerSession(std::string backend, runtime::SandboxShape shape,
                   std::unique_ptr<ExecTransport> transport, runtime::IsolationReport isolation);
  ~ContainerSession() override { close(); }

  core::Result<runtime::RunResult> exec(const runtime::ExecRequest& request,
                                        runtime::RunObserver& observer) override;
  core::Status write_file(const std::string& path, std::string_view content) override;
  core::Result<runtime::FileContent> read_file(const std::string& path, std::uint64_t max_bytes,
                                               std::uint64_t offset) override;
  // A host file in pieces of one write each, never held whole.
  core::Status copy_in(const std::string& path, int source_fd, std::uint64_t size,
                       bool executable) override;
  core::Result<std::vector<runtime::FileEntry>> list_files(const std::string& path,
                                                           std::size_t max_entries) override;
  // One helper command beside whatever runs (the transport allows a second exec meanwhile).
  core::Result<runtime::SessionUsage> usage() override;
  void close() override;

  // A command as `exec` runs it, without the clean-up kill afterwards (a one-off run's
  // container is removed right after).
  core::Result<runtime::RunResult> exec_once(const runtime::ExecRequest& request,
                                             runtime::RunObserver& observer);

  // Ends an installer's step before a step that may have no network: what the installer
  // started is killed, and the sandbox leaves every network, unless this backend's results say
  // that the network is not enforced (then the program keeps it, as they say).
  core::Status end_installers_network();

 private:
  // A command, and the kill when it overran or was cancelled.
  core::Result<ExecOutcome> run(const ExecCommand& command);
  // One of paddock's own commands (files, archives): no extra environment, no observer.
  core::Result<ExecOutcome> run_helper(std::vector<std::string> argv, std::uint64_t output_bytes,
                                       std::string input = {});
  core::Status kill_processes();
  // write_file without the lock or the path check: `path` relative to `directory`.
  core::Status put_file(const std::string& directory, const std::string& path,
                        std::string_view content);
  // One exec of the write script: `piece` creates the file (`first`) or is appended to it.
  core::Status put_piece(const std::string& directory, const std::string& path,
                         std::string_view piece, bool first);
  // Bytes one exec writes: what its arguments hold, or more where stdin carries them.
  [[nodiscard]] std::size_t write_chunk() const;
  runtime::RunResult result_of(ExecOutcome&& captured, const runtime::ExecRequest& request);

  std::mutex mutex_;  // one command or file operation at a time
  // Held by close() while the sandbox goes, and by usage(), which must not wait for mutex_ (a
  // command holds it until it ends).
  std::mutex closing_mutex_;
  std::string backend_;
  runtime::SandboxShape shape_;
  std::unique_ptr<ExecTransport> transport_;
  runtime::IsolationReport isolation_;
  bool closed_ = false;  // written under both mutexes, read under either
};

// A one-off run in a fresh session of `shape`: its support files and the plan's files written
// in, the plan's steps run in turn (the first failing step ends it) within its wall time; then
// the sandbox goes.
core::Result<runtime::RunResult> run_to_the_end(ContainerSession& session,
                                                const runtime::SandboxShape& shape,
                                                const runtime::RunPlan& plan,
                                                runtime::RunObserver& observer);

}  // namespace paddock::container
