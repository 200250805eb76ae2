#pragma once

// What every code call passes on its way, whoever makes it (MCP's execute_code through
// CodeService, `paddock run`): screening before anything runs, and one audit line after, blocked
// or run. The two controls are written here once, not at each entry point. The audit log is
// reached through a function, so that the lean `paddock`, which has no libcrypto to hash code
// with, links the gate without the log (a run with --audit-log goes to paddock-full).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/audit_log.h"
#include "app/code_screening.h"
#include "language/policy.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_parts.h"

namespace paddock::app {

// Writes one audit line; empty: there is no audit log.
using AuditRecorder = std::function<void(const AuditRecord& record)>;

// What the audit line says of a call, besides how it ended.
struct GatedCall {
  std::string tool;                    // execute_code or run
  std::optional<std::string> session;  // the session's id, for a call in one
  const language::LanguagePolicy* policy =
      nullptr;       // null: a command (`paddock run -- CMD`), not screened
  std::string code;  // hashed in the log; a command's words, space-joined
  std::vector<std::string> libraries;
};

// How a call that screening let through went.
struct GatedRun {
  const runtime::RunResult* result = nullptr;  // null: it could not run
  runtime::Limits limits;
  bool warm = false;  // it ran in a sandbox set up before it came
};

class CodeGate {
 public:
  // `mode`: the operator's screening mode over the policy's, when one is given.
  CodeGate(AuditRecorder record, std::string backend,
           std::optional<language::ScreeningMode> mode = std::nullopt)
      : record_(std::move(record)), backend_(std::move(backend)), mode_(mode) {}

  // The code's screening by its policy; a call it blocks is in the audit log when this returns.
  [[nodiscard]] language::ScreeningVerdict screen(const GatedCall& call) const;
  // The audit line of a call that screening let through.
  void ran(const GatedCall& call, const GatedRun& run) const;

 private:
  [[nodiscard]] AuditRecord record_of(const GatedCall& call) const;

  const AuditRecorder record_;
  const std::string backend_;
  const std::optional<language::ScreeningMode> mode_;
};

}  // namespace paddock::app
