#pragma once

// A sandbox in a Docker or Podman container: the container is created hardened
// (container_config.h) around a process that only keeps it alive, and every command is an exec
// in it, as the sandbox user. A command that overruns its time is ended from outside: its
// stream is dropped and a second exec kills every process of the sandbox user but the
// container's PID 1 (kill -KILL -1). Files go in and out through execs as well: the archive
// API cannot see the tmpfs work directory. Closing removes the container.

#include <memory>
#include <mutex>
#include <string>

#include "engine/engine_client.h"
#include "session.h"

namespace paddock::engine {

struct Flavour {
  std::string name;  // "docker" or "podman": the result's backend
  Endpoint endpoint;
  bool resource_limits = true;
  // Podman's differences: the seccomp profile as a file (not inline), the tmpfs owner as "U".
  bool podman_options = false;
};

class EngineSession final : public Session {
 public:
  static Result<std::unique_ptr<EngineSession>> open(const Flavour& flavour,
                                                     const SandboxSpec& spec);
  ~EngineSession() override { close(); }

  Result<RunResult> exec(const ExecRequest& request, RunObserver& observer) override;
  Status write_file(const std::string& path, std::string_view content) override;
  Result<FileContent> read_file(const std::string& path, std::uint64_t max_bytes) override;
  Result<std::vector<FileEntry>> list_files(const std::string& path,
                                            std::size_t max_entries) override;
  void close() override;

  // A command as `exec` runs it, without the clean-up kill afterwards (a one-off run's
  // container is removed right after).
  Result<RunResult> exec_once(const ExecRequest& request, RunObserver& observer);

 private:
  EngineSession(const Flavour& flavour, SandboxSpec spec, std::string id)
      : flavour_(flavour), spec_(std::move(spec)), id_(std::move(id)), client_(flavour.endpoint) {}

  struct Captured {
    long exit_code = -1;
    bool timed_out = false;
    bool cancelled = false;
    CapturedOutput out, err;
    std::int64_t duration_ms = 0;
  };
  // Runs argv in the container; output capped at `cap` bytes per stream.
  Result<Captured> run_exec(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env, double wall_seconds,
                            std::uint64_t cap, bool merge_stdout, RunObserver* observer);
  Status kill_processes();
  // write_file without the lock or the path check: `path` relative to `directory`.
  Status put_file(const std::string& directory, const std::string& path, std::string_view content);
  RunResult result_of(Captured&& captured, const ExecRequest& request);

  std::mutex mutex_;  // one command or file operation at a time
  Flavour flavour_;
  SandboxSpec spec_;
  std::string id_;
  Client client_;
  bool closed_ = false;
};

}  // namespace paddock::engine
