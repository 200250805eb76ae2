#pragma once

// What happened to one sandboxed program. Never an error: a program that crashed, timed out or
// was refused a system call is a result, whereas paddock failing to build the sandbox is an Error.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "net/egress/egress_record.h"

namespace paddock::runtime {

enum class Outcome {
  kExited,      // the program exited by itself (any exit code)
  kSignaled,    // killed by a signal it did not ask paddock for (e.g. SIGSEGV, SIGXCPU)
  kTimedOut,    // the wall-clock limit ran out and paddock killed the sandbox
  kCancelled,   // the caller cancelled the run (Ctrl-C, MCP cancellation)
  kExecFailed,  // the command could not be started inside the sandbox (not found, E2BIG...)
};

struct CapturedOutput {
  std::string data;
  bool truncated = false;
  std::uint64_t total_bytes = 0;  // everything the program wrote, kept or dropped
  // When truncated: `data` is the stream's first head_bytes, then its last bytes; what was
  // between them is gone (runtime/output_capture.h).
  std::uint64_t head_bytes = 0;
};

// Which mechanisms were really in force for this run, for the result and for `paddock doctor`.
struct IsolationReport {
  std::vector<std::string> namespaces;  // "user", "mount", "pid", ...
  std::string id_mapping;               // "self", "subordinate" or "root"
  std::uint32_t host_uid = 0;           // the host uid the sandboxed program ran as
  std::uint32_t host_gid = 0;
  bool seccomp = false;
  std::string seccomp_profile;  // "default" or the profile path
  bool no_new_privs = false;
  bool capabilities_dropped = false;
  std::string network;              // "none" or "host"
  std::string root;                 // "host", "image (overlayfs)" or "image (flattened copy)"
  std::string root_reason;          // why a flattened copy, when it is one
  std::string limits_mode;          // "cgroup2" where paddock may create cgroups, else "rlimit"
  std::string limits_reason;        // why that mode: what the host offers or lacks
  std::vector<std::string> limits;  // the limits applied, e.g. "pids.max=256"
  std::vector<std::string> not_enforced;  // limits asked for that this host cannot enforce
  std::string cgroup;                     // the sandbox's cgroup, in cgroup2 mode
};

// A file the run produced (see OutputCollection).
struct Artifact {
  std::string path;  // relative to the work directory, e.g. "outputs/result.csv"
  std::string mime_type;
  std::uint64_t size = 0;
  std::string data;
  std::string withheld;  // why `data` is not to be delivered (a consumer's verdict); empty: it is
};

// A file the run produced that a cap left out (see OutputCollection).
struct OmittedArtifact {
  std::string path;  // empty: not a file, but a note on files that were never listed
  std::uint64_t size = 0;
  std::string reason;  // which cap
};

// How many left-out files a result names: the rest are only counted, so that a program that
// makes millions of them (a live cell's display flood) costs the server no more than this.
inline constexpr std::size_t kMaxOmittedListed = 200;

// An error a live session's cell raised, as the kernel reported it (ANSI colour codes removed).
struct KernelError {
  std::string name;   // "NameError"
  std::string value;  // "name 'x' is not defined"
  std::vector<std::string> traceback;
};

// What a run in a live session's interpreter adds (runtime/live_kernel.h).
struct CellReport {
  int execution_count = 0;
  std::string result_text;  // the value of the cell's final expression, as text/plain
  bool result_truncated = false;
  std::optional<KernelError> error;
  std::string state_lost;  // why the interpreter's state is gone; empty when it was kept
  // It was gone before this cell (a reopened session's first): the cell itself ran in full.
  bool lost_before_cell = false;
};

// A system call the sandbox's seccomp filter refused, and how often.
struct RefusedSystemCall {
  std::string name;  // "mount"; "syscall N" for a number this host's libseccomp cannot name
  std::uint64_t count = 0;
  bool quiet = false;  // one of the profile's quiet refusals (a library's probe): not said
};

// What the sandbox refused the program, counted where the backend can see it.
struct Refusals {
  // Counted by the filter's supervisor (runtime/native/init/init_relay.h): the first few names,
  // then only a count. Empty with counted == false: nothing could count (a backend or kernel
  // without seccomp user notification, or a profile of the caller's), not "nothing refused".
  std::vector<RefusedSystemCall> system_calls;
  std::uint64_t system_calls_unnamed = 0;  // refusals beyond the named ones
  bool system_calls_counted = false;
  // Process creations the pids limit refused (the cgroup's pids.events "max"; cgroup2 only).
  std::uint64_t process_limit = 0;

  [[nodiscard]] bool any() const {
    return !system_calls.empty() || system_calls_unnamed > 0 || process_limit > 0;
  }
};

struct RunResult {
  Outcome outcome = Outcome::kExited;
  int exit_code = 0;       // the program's exit code; 128+N when killed by signal N
  int signal = 0;          // the signal that ended it, 0 if none
  std::string exec_error;  // for kExecFailed: why the command could not start
  int step = 0;  // which command ended the run: a prelude command's index, or the prelude's size
                 // for the program itself
  CapturedOutput stdout_data;
  CapturedOutput stderr_data;
  std::int64_t duration_ms = 0;
  std::int64_t cpu_ms = 0;
  std::int64_t max_rss_kb = 0;
  bool oom_killed = false;              // the kernel's OOM killer ended a process (cgroup2)
  std::uint64_t memory_peak_bytes = 0;  // of the whole sandbox (cgroup2, Linux 5.19+)
  std::string backend;
  std::vector<Artifact> artifacts;
  // What a count or size cap left out: the first kMaxOmittedListed, then only counted.
  std::vector<OmittedArtifact> artifacts_omitted;
  std::uint64_t artifacts_omitted_unlisted = 0;
  IsolationReport isolation;
  std::optional<CellReport> cell;  // only for a cell of a live session
  // Destinations the egress proxy refused and reached (an allowlist run): deduplicated, capped.
  net::egress::EgressRecord network;
  Refusals refused;

  [[nodiscard]] bool timed_out() const { return outcome == Outcome::kTimedOut; }
  [[nodiscard]] bool artifacts_truncated() const { return !artifacts_omitted.empty(); }
  // All the files left out, listed or not.
  [[nodiscard]] std::uint64_t artifacts_omitted_count() const {
    return artifacts_omitted.size() + artifacts_omitted_unlisted;
  }
  // Lists a file a cap left out while there is room, else counts it; a note (an empty path)
  // is always kept.
  void omit_artifact(OmittedArtifact omitted);
  void omit_artifacts(std::vector<OmittedArtifact> omitted);
};

const char* to_string(Outcome outcome);

nlohmann::json to_json(const RunResult& result);

// {denied: [{host, port, reason}], allowed: [{host, port}], omitted?}: hosts and ports only.
nlohmann::json network_json(const net::egress::EgressRecord& record);

// {system_calls?: {name: count}, system_calls_unnamed?, process_limit?}: what the sandbox
// refused, for `paddock run --json` and the MCP result's structuredContent.
nlohmann::json refusals_json(const Refusals& refused);

// The exit status `paddock run` returns for a result: the program's own exit code, 124 on
// timeout, 128+N when killed by signal N, 126/127 when the command could not be executed.
int cli_exit_status(const RunResult& result);

}  // namespace paddock::runtime
