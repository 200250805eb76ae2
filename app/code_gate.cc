#include "app/code_gate.h"

namespace paddock::app {

AuditRecord CodeGate::record_of(const GatedCall& call) const {
  AuditRecord record;
  record.tool = call.tool;
  record.session = call.session;
  if (call.policy != nullptr) record.language = call.policy->name;
  record.code = call.code;
  record.libraries = call.libraries;
  record.backend = backend_;
  return record;
}

language::ScreeningVerdict CodeGate::screen(const GatedCall& call) const {
  if (call.policy == nullptr) return {};
  language::ScreeningVerdict verdict = screen_code(*call.policy, call.code, mode_);
  if (verdict.blocked && record_) {
    AuditRecord record = record_of(call);
    record.outcome = "blocked";
    record_(record);
  }
  return verdict;
}

void CodeGate::ran(const GatedCall& call, const GatedRun& run) const {
  if (!record_) return;
  AuditRecord record = record_of(call);
  if (run.result == nullptr) {
    record.outcome = "error";
    record_(record);
    return;
  }
  const runtime::RunResult& result = *run.result;
  record.limits = run.limits;
  record.outcome = runtime::to_string(result.outcome);
  if (result.outcome == runtime::Outcome::kExited) record.exit_code = result.exit_code;
  record.duration_ms = result.duration_ms;
  record.network = result.network;
  record.warm = run.warm;
  record_(record);
}

}  // namespace paddock::app
