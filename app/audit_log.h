#pragma once

// The audit log (--audit-log): one JSON line per run, appended, for whoever must later answer
// "what ran, for whom, under which limits, and how did it end". It holds a hash of the code,
// never the code, its input, its output or any environment value, so the log can be kept and
// shipped where the secrets may not go.
//
//   {"time":"2026-11-21T10:00:00.123Z","tool":"execute_code","session":null,
//    "language":"python","code_sha256":"...","libraries":[],"backend":"native",
//    "limits":{...},"outcome":"exited","exit_code":0,"duration_ms":21}
//
// A call that `paddock wrap` passed to the MCP server it wraps is a line of its own shape: the
// server, the tool, the argument names with their sizes, and the values only when asked for
// (--audit-values), masked like everything else.
//
//   {"time":"...","tool":"tools/call","server":"filesystem","wrapped_tool":"read_file",
//    "arguments":{"path":14},"outcome":"ok","duration_ms":3}

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/secret_mask.h"
#include "core/result.h"
#include "core/unique_fd.h"
#include "net/egress/egress_record.h"
#include "runtime/sandbox_parts.h"

namespace paddock::app {

// A host file or folder a tool touched: an upload's source, a download's target, or a share
// mounted into a session. Its real path on the host and how much, never its contents.
struct HostFileRecord {
  std::string action;  // upload, download, mount or export
  std::string host_path;
  std::string session_path;
  bool writable = false;  // a mount's
  std::uint64_t bytes = 0;
  std::uint32_t files = 0;
  std::optional<std::string> sha256;
};

// What the user answered when asked (paddock mcp --ask): about a destination a sandbox tried
// ("network", `target` "host:port", `asker` "program" or "installer") or a preview ("preview",
// `target` the port, `asker` "expose_port"). `answer`: once, session, allow, denied, dismissed,
// unanswered.
struct UserAnswerAudit {
  std::string subject;
  std::string target;
  std::string asker;
  std::string answer;
};

// A tools/call of a server that `paddock wrap` runs (app/wrapped_stream.h).
struct WrappedCallAudit {
  std::string server;
  std::string tool;
  std::vector<std::pair<std::string, std::uint64_t>> arguments;  // names, sizes in bytes
  std::optional<nlohmann::json> values;                          // --audit-values
};

struct AuditRecord {
  // execute_code, install_libraries, create_session, upload_file or download_file
  std::string tool;
  std::optional<std::string> session;
  std::string language;
  std::optional<std::string> code;  // hashed, never written
  std::vector<std::string> libraries;
  std::string backend;
  runtime::Limits limits;
  std::string outcome;  // a run's (exited, timed_out...), or blocked, or error
  std::optional<int> exit_code;
  std::int64_t duration_ms = 0;
  // A fresh call that ran in a warm sandbox (set up before it came); written only then.
  bool warm = false;
  std::vector<HostFileRecord> host_files;  // written only when there are some
  // Destinations the egress proxy reached and refused (hosts and ports, never contents);
  // written only when there are some.
  net::egress::EgressRecord network;
  std::optional<std::string> error;  // why a refused upload or download was refused
  // A wrapped server's call: its own line, with outcome, duration_ms and error from above.
  std::optional<WrappedCallAudit> wrapped;
  // A question to the user: its own line, "tool": "ask", with `session` from above.
  std::optional<UserAnswerAudit> answer;
};

class AuditLog {
 public:
  // Opens `path` for appending, created 0600. Only this user's own regular file with one name is
  // taken: a symlink, a hard link, a FIFO, a device or another user's file there is refused (the
  // folder may be one sandboxed code can write). An error is one line naming the path and why.
  static core::Result<std::unique_ptr<AuditLog>> open(const std::string& path);
  // One line, written whole by one write(2) to an O_APPEND file, so that lines from threads (and
  // from other servers sharing the file) never interleave. Every string in it passes `secrets` (a
  // host name, a file name or an error may hold one).
  void record(const AuditRecord& record, const SecretMask& secrets);

 private:
  explicit AuditLog(core::UniqueFd fd) : fd_(std::move(fd)) {}
  std::mutex mutex_;
  core::UniqueFd fd_;
};

}  // namespace paddock::app
