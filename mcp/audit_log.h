#pragma once

// The audit log (--audit-log): one JSON line per run, appended, for whoever must later answer
// "what ran, for whom, under which limits, and how did it end". It holds a hash of the code,
// never the code, its input, its output or any environment value, so the log can be kept and
// shipped where the secrets may not go.
//
//   {"time":"2026-11-21T10:00:00.123Z","tool":"execute_code","session":null,
//    "language":"python","code_sha256":"...","libraries":[],"backend":"native",
//    "limits":{...},"outcome":"exited","exit_code":0,"duration_ms":21}

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/sandbox_spec.h"

namespace paddock::mcp {

struct AuditRecord {
  std::string tool;  // execute_code, install_libraries or create_session
  std::optional<std::string> session;
  std::string language;
  std::optional<std::string> code;  // hashed, never written
  std::vector<std::string> libraries;
  std::string backend;
  Limits limits;
  std::string outcome;  // a run's (exited, timed_out...), or blocked, or error
  std::optional<int> exit_code;
  std::int64_t duration_ms = 0;
};

class AuditLog {
 public:
  // Opens `path` for appending (created 0600); an error names the path and why.
  static Result<std::unique_ptr<AuditLog>> open(const std::string& path);
  // One line, written whole by one write(2) to an O_APPEND file, so that lines from threads
  // (and from other servers sharing the file) never interleave.
  void record(const AuditRecord& record);

 private:
  explicit AuditLog(UniqueFd fd) : fd_(std::move(fd)) {}
  std::mutex mutex_;
  UniqueFd fd_;
};

}  // namespace paddock::mcp
