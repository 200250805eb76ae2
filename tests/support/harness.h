#pragma once

// Helpers for integration tests: run real sandboxes in-process through the native backend, or
// the `paddock` binary as a user would, and look at the host afterwards.

#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/run_result.h"
#include "support/test_spec.h"

namespace paddock::testing {

// Built binaries; PADDOCK_BIN / PADDOCK_PROBE_BIN override them (scripts/test copies them where
// an unprivileged user can reach them).
std::string paddock_binary();
// paddock with the tests' own names for local servers (PADDOCK_EGRESS_TEST_RESOLVE; see
// tests/support/test_names/main.cc); PADDOCK_TEST_NAMES_BIN overrides it.
std::string paddock_test_names_binary();
std::string probe_binary();
std::string source_dir();

// A spec that runs `argv` with test-friendly limits.
TestSpec spec_for(std::vector<std::string> argv);
// The same for `sh -c script`.
TestSpec shell_spec(const std::string& script);
// The probe bound read-only at /probe/paddock_probe.
TestSpec probe_spec(std::vector<std::string> probe_args);

// Records what the backend reported while running.
class RecordingObserver : public runtime::RunObserver {
 public:
  void on_started(int host_pid) override;
  void on_output(runtime::StreamId stream, std::string_view chunk) override;
  [[nodiscard]] const runtime::CancellationToken* cancellation() const override { return &token_; }

  int host_pid = -1;
  std::size_t chunks = 0;
  runtime::CancellationToken token_;
};

// Runs through NativeBackend and fails the test if paddock itself failed.
runtime::RunResult run_ok(const TestSpec& spec);
runtime::RunResult run_ok(const TestSpec& spec, RecordingObserver& observer);

// Cold: a sandbox made for the run (run_ok). Warm: the run carried out in a session opened from
// its shape beforehand, as the MCP server's warm pool does (runtime/warm_run.h).
enum class RunMode { kCold, kWarm };
runtime::RunResult run_ok(RunMode mode, const TestSpec& spec, RecordingObserver& observer);
const char* to_string(RunMode mode);

struct CliResult {
  int exit_status = -1;  // the exit code, or 128+signal
  std::string out;
  std::string err;
};
// Runs the paddock binary with `args` and waits (with a generous safety timeout).
CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "");
// The same for any program: argv[0] is its path.
CliResult run_program(std::vector<std::string> argv, const std::string& stdin_text = "");

// The children of `pid` (of any of its threads), as host pids.
std::vector<pid_t> children_of(pid_t pid);
// The sandboxes a `paddock mcp` started: its children that are paddock-init relays.
std::vector<pid_t> sandboxes_of(pid_t server);

// Host pids whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker);
// Those of them that run as a uid this user's sandboxes may have (its own or a subordinate one):
// scripts/test runs another user's suites beside this one, with processes of the same names.
std::vector<pid_t> processes_of_this_user_with(const std::string& marker);
// The real uid of host process `pid`, or -1.
long host_uid_of(pid_t pid);
int open_fd_count();
std::string read_file(const std::string& path);
std::vector<std::string> directory_entries(const std::string& path);
// What this user has in /tmp whose name starts with `prefix`. Only this user's entries can be
// this process's leftovers: scripts/test runs another user's suites beside this one, whose files
// come and go meanwhile.
std::vector<std::string> own_entries_of_tmp(const std::string& prefix = "");
// The mounts this process sees, but those of the jobs scripts/test runs beside the suites, which
// come and go meanwhile: the container engines' (their containers' overlays and network
// namespaces, under the engines' folder or /run/netns) and the image builds' (mmdebstrap).
std::string mounts_but_other_jobs();

}  // namespace paddock::testing
