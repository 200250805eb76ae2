#include "app/code_service.h"

#include "app/audit_log.h"
#include "app/kept_sessions.h"

namespace paddock::app {
namespace {

// The audit log's line for a run, or for code that screening blocked (`run` null).
AuditRecord audit_record(const Backend& backend, const SessionEntry* session,
                         const LanguagePolicy& policy, const CodeRequest& request,
                         const Result<CodeRun>* run) {
  AuditRecord record;
  record.tool = "execute_code";
  record.language = policy.name;
  record.code = request.code;
  record.libraries = request.libraries;
  record.backend = backend.name();
  if (session != nullptr) record.session = session->id();
  if (run == nullptr) {
    record.outcome = "blocked";
    return record;
  }
  if (!*run) {
    record.outcome = "error";
    return record;
  }
  const RunResult& result = (*run)->result.run;
  record.limits = (*run)->limits;
  record.outcome = to_string(result.outcome);
  if (result.outcome == Outcome::kExited) record.exit_code = result.exit_code;
  record.duration_ms = result.duration_ms;
  record.network = result.network;
  record.warm = (*run)->warm;
  return record;
}

}  // namespace

Result<CodeAnswer> CodeService::execute(const CodeCall& call, RunObserver& observer,
                                        std::shared_ptr<void>& until_answered) const {
  std::optional<SessionLease> lease;
  const LanguagePolicy* policy = nullptr;
  if (!call.session.empty()) {
    auto acquired = sessions_.acquire(call.session);
    if (!acquired) return acquired.error();
    lease.emplace(std::move(*acquired));
    policy = &(*lease)->policy();
    if (!call.language.empty()) {
      auto asked = policies_.find(call.language);
      if (!asked || *asked != policy) {
        return invalid_input("session " + (*lease)->id() + " runs " + policy->name +
                             "; create another session for another language");
      }
    }
  } else {
    auto found = policies_.find(call.language.empty() ? default_language_ : call.language);
    if (!found) return found.error();
    policy = *found;
  }
  SessionEntry* session = lease ? &**lease : nullptr;
  CodeAnswer answer;
  answer.in_session = session != nullptr;
  answer.screening = screen_code(*policy, call.request.code);
  if (answer.screening.blocked) {
    audit_.record(audit_record(runner_.backend(), session, *policy, call.request, nullptr));
    return answer;
  }
  answer.run = session ? runner_.run_in_session(*session, call.request, observer)
                       : runner_.run_fresh(*policy, call.request, observer, until_answered);
  audit_.record(audit_record(runner_.backend(), session, *policy, call.request, &answer.run));
  // An error may carry what the sandbox said (a kernel's log when it cannot start again).
  if (session) answer.not_kept = keep_session_files(*session);
  return answer;
}

}  // namespace paddock::app
