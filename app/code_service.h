#pragma once

// One code call's path, whoever asks: screen the code, run it (fresh: warm or cold; or in a
// session), mask, audit. execute_code only turns JSON into a CodeCall and the answer into
// content, so that no security control is written at an entry point. Screening and the audit
// line are the CodeGate's (app/code_gate.h), which `paddock run` passes through too.

#include <memory>
#include <optional>
#include <string>

#include "app/audit_trail.h"
#include "app/code_gate.h"
#include "app/code_runner.h"
#include "app/host_questions.h"
#include "app/session_registry.h"
#include "app/toolchains.h"
#include "core/result.h"
#include "language/policy_store.h"

namespace paddock::app {

struct CodeCall {
  std::string language;  // empty: the session's, else the server's default
  std::string session;   // id or name; empty for a fresh sandbox
  CodeRequest request;
  // The call's way to the person (paddock mcp --ask network); null: nobody is asked.
  std::shared_ptr<UserChannel> user;
};

// What became of a call that was taken: blocked by screening (`run` then holds no result), or
// run, well or not.
struct CodeAnswer {
  language::ScreeningVerdict screening;
  core::Result<CodeRun> run = core::Error{ECANCELED, "blocked by code screening"};
  bool in_session = false;
  std::string not_kept;  // why a session's files were not kept on disk after it, or empty
};

class CodeService {
 public:
  CodeService(const language::PolicyStore& policies, const Toolchains& toolchains,
              SessionRegistry& sessions, const CodeRunner& runner, const AuditTrail& audit,
              std::string default_language, OpenQuestions& open_questions, bool ask_network = false)
      : policies_(policies),
        toolchains_(toolchains),
        sessions_(sessions),
        runner_(runner),
        audit_(audit),
        ask_network_(ask_network),
        open_questions_(open_questions),
        gate_([&audit](const AuditRecord& record) { audit.record(record); },
              std::string(runner.backend().name())),
        default_language_(std::move(default_language)) {}

  // An error is a call that could not be taken (no such session or language); everything else,
  // blocked or run, is an answer, and is in the audit log.
  core::Result<CodeAnswer> execute(const CodeCall& call, runtime::RunObserver& observer,
                                   std::shared_ptr<void>& until_answered) const;
  // install_libraries: CodeRunner::install_in_session, with the installer's questions about a
  // host its index list lacks asked through `user` (--ask network).
  core::Result<runtime::RunResult> install(SessionEntry& session,
                                           const std::vector<std::string>& libraries,
                                           runtime::RunObserver& observer,
                                           std::shared_ptr<UserChannel> user) const;

 private:
  // Who the sandbox's proxy asks while this call runs, or null.
  [[nodiscard]] std::shared_ptr<CallConsent> consent_for(const std::shared_ptr<UserChannel>& user,
                                                         const SessionEntry* session) const;

  const language::PolicyStore& policies_;
  const Toolchains& toolchains_;
  SessionRegistry& sessions_;
  const CodeRunner& runner_;
  const AuditTrail& audit_;
  const bool ask_network_;
  OpenQuestions& open_questions_;  // the server's, which previews' questions count in too
  const CodeGate gate_;
  const std::string default_language_;
};

}  // namespace paddock::app
