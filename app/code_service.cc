#include "app/code_service.h"

#include "app/kept_sessions.h"

namespace paddock::app {
namespace {

GatedCall gated_call(const SessionEntry* session, const language::LanguagePolicy& policy,
                     const CodeRequest& request) {
  GatedCall call{"execute_code", std::nullopt, &policy, request.code, request.libraries};
  if (session != nullptr) call.session = session->id();
  return call;
}

}  // namespace

std::shared_ptr<CallConsent> CodeService::consent_for(const std::shared_ptr<UserChannel>& user,
                                                      const SessionEntry* session) const {
  if (!ask_network_ || !user) return nullptr;
  ConsentAsker asker{"A fresh sandbox", ""};
  std::shared_ptr<HostGrants> grants = std::make_shared<HostGrants>();  // this call's alone
  if (session != nullptr) {
    asker.session = session->id();
    asker.words = "Sandbox session " + session->id() +
                  (session->name().empty() ? "" : " (\"" + session->name() + "\")");
    grants = session->host_grants();
  }
  return std::make_shared<CallConsent>(user, std::move(asker), std::move(grants), open_questions_,
                                       audit_);
}

core::Result<runtime::RunResult> CodeService::install(SessionEntry& session,
                                                      const std::vector<std::string>& libraries,
                                                      runtime::RunObserver& observer,
                                                      std::shared_ptr<UserChannel> user) const {
  return runner_.install_in_session(session, libraries, observer, "install_libraries",
                                    consent_for(user, &session));
}

core::Result<CodeAnswer> CodeService::execute(const CodeCall& call, runtime::RunObserver& observer,
                                              std::shared_ptr<void>& until_answered) const {
  std::optional<SessionLease> lease;
  const language::LanguagePolicy* policy = nullptr;
  if (!call.session.empty()) {
    auto acquired = sessions_.acquire(call.session);
    if (!acquired) return acquired.error();
    lease.emplace(std::move(*acquired));
    policy = &(*lease)->policy();
    if (!call.language.empty()) {
      auto asked = policies_.find(call.language);
      if (!asked || *asked != policy) {
        return core::invalid_input("session " + (*lease)->id() + " runs " + policy->name +
                                   "; create another session for another language");
      }
    }
  } else {
    auto found = policies_.find(call.language.empty() ? default_language_ : call.language);
    if (!found) return found.error();
    policy = *found;
    if (std::string missing = toolchains_.unavailable(*policy); !missing.empty()) {
      return core::Error{ENOENT, missing};
    }
  }
  SessionEntry* session = lease ? &**lease : nullptr;
  CodeAnswer answer;
  answer.in_session = session != nullptr;
  const GatedCall gated = gated_call(session, *policy, call.request);
  answer.screening = gate_.screen(gated);
  if (answer.screening.blocked) return answer;
  auto consent = consent_for(call.user, session);
  if (session != nullptr) {
    answer.run = runner_.run_in_session(*session, call.request, observer, consent);
  } else {
    answer.run = runner_.run_fresh(*policy, call.request, observer, until_answered, consent);
  }
  if (answer.run) {
    gate_.ran(gated, {&answer.run->result.run, answer.run->limits, answer.run->warm});
  } else {
    gate_.ran(gated, {});
  }
  // An error may carry what the sandbox said (a kernel's log when it cannot start again).
  if (session) answer.not_kept = keep_session_files(*session);
  return answer;
}

}  // namespace paddock::app
