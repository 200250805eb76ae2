#pragma once

// Runs code in a language, for execute_code: in a fresh throw-away sandbox, or as a sequence of
// commands ([install] [compile] run) in a session's sandbox. Both go through the Backend and
// Session interfaces only; the result is the same LanguageRunResult either way.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/audit_trail.h"
#include "app/image_provisioner.h"
#include "app/secret_mask.h"
#include "app/server_config.h"
#include "app/session_registry.h"
#include "app/warm_pool.h"
#include "core/result.h"
#include "language/language_run.h"
#include "language/spec_builder.h"

namespace paddock::app {

struct CodeRequest {
  std::string code;
  std::vector<std::string> libraries;
  std::optional<double> timeout_seconds;  // capped at the server's maximum
  std::optional<std::string> stdin_text;
  std::vector<runtime::SandboxFile> files;  // written into the work directory first
};

struct CodeRun {
  language::LanguageRunResult result;  // its output with passed-through secrets masked
  runtime::Limits limits;              // what applied, for the audit log
  double timeout_seconds = 0;          // the timeout that applied
  bool timeout_capped = false;
  std::vector<std::string> preinstalled;  // libraries asked for that were there already
  bool warm = false;  // a fresh call that ran in a sandbox set up before it came (warm_pool.h)
  // In a session, where a stream the result cuts is kept whole (".paddock/output/3/stdout"),
  // or why it could not be.
  std::string stdout_file, stderr_file, output_file_error;
};

// Where a session's n-th run keeps a stream whole: "stdout" or "stderr".
std::string session_output_file(int run, const std::string& stream);

// How much of a stream a session keeps for that file: the start and the end beyond it.
inline constexpr std::uint64_t kSessionStreamBytes = 32u << 20;

// Why an install did not succeed, or nothing: one line first when the reason is plain (the
// package index could not be reached), then the installer's output, its start and its end.
std::optional<std::string> install_failure(const core::Result<runtime::RunResult>& installed);

// Runs calls and builds sessions' specs under the server's options, with what that takes and
// nothing more: the backend, the images it resolves, the secrets it masks, the audit log an
// install writes to, and the warm sandboxes fresh calls take.
class CodeRunner {
 public:
  CodeRunner(const ServerOptions& options, runtime::Backend& backend, ImageProvisioner& images,
             const SecretMask& secrets, const AuditTrail& audit, WarmPool& warm)
      : options_(options),
        backend_(backend),
        images_(images),
        secrets_(secrets),
        audit_(audit),
        warm_(warm) {}

  [[nodiscard]] runtime::Backend& backend() const { return backend_; }

  // A fresh call: in a warm sandbox when one of its shape waits (the pool's hold then goes into
  // `until_answered`, ToolContext's), else in a new one.
  core::Result<CodeRun> run_fresh(const language::LanguagePolicy& policy,
                                  const CodeRequest& request, runtime::RunObserver& observer,
                                  std::shared_ptr<void>& until_answered,
                                  std::shared_ptr<net::egress::HostConsent> consent = {}) const;
  // `consent`: who the session's proxy asks while the call holds the session (--ask network).
  core::Result<CodeRun> run_in_session(
      SessionEntry& session, const CodeRequest& request, runtime::RunObserver& observer,
      const std::shared_ptr<net::egress::HostConsent>& consent = {}) const;

  // Starts keeping warm sandboxes for `policy`'s (the default language's) fresh calls, of the
  // shape a call without libraries has, when its image is there already (none is pulled for it).
  void prepare_warm_sandboxes(const language::LanguagePolicy& policy) const;

  // Installs libraries into a session with the policy's installer (and, for that command only,
  // the policy's install network). The result is the installer's, secrets masked.
  // `tool` names the caller in the audit log, where every install is recorded.
  core::Result<runtime::RunResult> install_in_session(
      SessionEntry& session, const std::vector<std::string>& libraries,
      runtime::RunObserver& observer, const std::string& tool,
      const std::shared_ptr<net::egress::HostConsent>& consent = {}) const;

  // The shape and plan that ask `policy`'s toolchain for its version (its version command), on
  // the language's root file system when that is there already (nothing is pulled for it).
  core::Result<language::BuiltSpec> toolchain_version_spec(
      const language::LanguagePolicy& policy) const;

  // The shape a session of `policy` is opened from (support files, limits, image) and the plan
  // its commands start from (its environment). Its image is pulled first when missing (reported
  // through `progress`). `binds` are the session's share mounts, part of its shape from the
  // start.
  core::Result<language::BuiltSpec> session_spec(
      const language::LanguagePolicy& policy, const runtime::PullProgress& progress,
      const std::vector<runtime::BindMount>& binds = {}) const;

 private:
  // The server's options as the spec builder's overrides: they are the same for every call.
  [[nodiscard]] language::SpecOverrides overrides() const { return spec_overrides(options_); }
  // The server's backend resolves images, pulled on first use (reported through `progress`).
  language::ImageSource images(const runtime::PullProgress& progress) const;
  std::vector<std::string> preload_of(const language::LanguagePolicy& policy) const;
  std::optional<runtime::WarmInterpreter> interpreter_for(const language::LanguagePolicy& policy,
                                                          const runtime::SandboxShape& shape,
                                                          const std::string& code,
                                                          std::string& pool_key) const;
  core::Result<runtime::RunResult> run_warm_or_cold(const language::LanguagePolicy& policy,
                                                    const std::string& code,
                                                    const runtime::SandboxShape& shape,
                                                    const runtime::RunPlan& plan,
                                                    runtime::RunObserver& observer, bool& warm,
                                                    std::shared_ptr<void>& until_answered) const;
  core::Result<CodeRun> run_live(SessionEntry& session, const CodeRequest& request,
                                 runtime::RunObserver& observer,
                                 const std::shared_ptr<net::egress::HostConsent>& consent) const;

  const ServerOptions& options_;
  runtime::Backend& backend_;
  ImageProvisioner& images_;
  const SecretMask& secrets_;
  const AuditTrail& audit_;
  WarmPool& warm_;
};

}  // namespace paddock::app
