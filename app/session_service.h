#pragma once

// Making a session, as one transaction: create_session and fork_session (mcp/tools/) only turn
// JSON into a SessionRequest and the result into content. Every step that can fail after the
// registry holds a slot undoes what came before it through one guard (SessionRollback in the .cc),
// so a failure leaves no reserved slot, open sandbox, registered session or kept workspace.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/audit_trail.h"
#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "app/live_session.h"
#include "app/server_config.h"
#include "app/session_registry.h"
#include "app/shares.h"
#include "app/toolchains.h"
#include "core/result.h"
#include "runtime/session.h"

namespace paddock::app {

// What a new session is asked to be. Empty `language` means the server's default, or the
// snapshot's session's language when it starts from a snapshot.
struct SessionRequest {
  std::string language;
  std::string name;  // unique among kept sessions; empty for none
  std::vector<std::string> libraries;
  bool live = true;
  std::vector<ShareMount> mounts;
  std::optional<double> ttl_seconds;
  struct Snapshot {
    std::string session;
    std::string name;
  };
  std::optional<Snapshot> from_snapshot;
  std::optional<std::string> from_archive;  // a path under a share
};

// A session that was made, and what its creation has to say.
struct CreatedSession {
  std::shared_ptr<SessionEntry> entry;
  std::string summary;   // "session s-… (python) named … with 2 libraries installed; share …"
  std::string not_kept;  // why its files are not kept on disk, or empty
};

// What a session's creation reports while it runs: an image pull's progress, and the install's
// output.
struct CreationProgress {
  runtime::PullProgress pull;
  runtime::RunObserver& install;
};

// A session that was closed: its id, and what became of it ("closed", "closed; its files stay
// on disk", "removed from disk").
struct ClosedSession {
  std::string id;
  std::string said;
};

class SessionService {
 public:
  SessionService(const ServerOptions& options, const language::PolicyStore& policies,
                 const Toolchains& toolchains, SessionRegistry& sessions, const KeptSessions& kept,
                 const CodeRunner& runner, WarmPool& warm, KernelPool& kernels,
                 const Shares& shares, const SecretMask& secrets, const AuditTrail& audit)
      : options_(options),
        policies_(policies),
        toolchains_(toolchains),
        sessions_(sessions),
        kept_(kept),
        runner_(runner),
        warm_(warm),
        kernels_(kernels),
        shares_(shares),
        secrets_(secrets),
        audit_(audit) {}

  // `tool` names the caller in the audit log (create_session or fork_session).
  core::Result<CreatedSession> create(const SessionRequest& request,
                                      const CreationProgress& progress,
                                      const std::string& tool) const;
  // A snapshot of `source` (the first free "fork-N") and a new session from it. The snapshot's
  // name is given back in `snapshot`.
  core::Result<CreatedSession> fork(const std::string& source, SessionRequest request,
                                    const CreationProgress& progress, std::string& snapshot) const;
  // Closes the open session `id_or_name` (its sandbox killed) and drops its files on disk too
  // unless `keep`; a kept session that is not open is removed from disk (`keep` then refused).
  core::Result<ClosedSession> close(const std::string& id_or_name, bool keep) const;

 private:
  // Writes a new session's files into its workspace, before anything runs in it.
  using WorkspaceFill = std::function<core::Status(int workspace)>;

  // What the request's name, snapshot or archive ask of the state directory, checked before any
  // sandbox is made. The fill is empty when the session starts with an empty workspace.
  core::Result<WorkspaceFill> kept_source(const SessionRequest& request,
                                          std::string& language) const;
  // One audit line for the mounts of a session, whether it opened or not.
  void record_mounts(const language::LanguagePolicy& policy, const runtime::Limits& limits,
                     const std::vector<ShareMount>& mounts, const std::string& outcome) const;
  // A registered session made what the request asks: kept on disk, its libraries installed, its
  // interpreter started (`kernel`, when it took a ready one). Adds to `summary`.
  core::Status set_up(SessionEntry& entry, const SessionRequest& request, const WorkspaceFill& fill,
                      std::unique_ptr<runtime::LiveKernel> kernel, const CreationProgress& progress,
                      const std::string& tool, std::string& summary) const;

  const ServerOptions& options_;  // the default language, the sessions' quotas and idle time
  const language::PolicyStore& policies_;
  const Toolchains& toolchains_;
  SessionRegistry& sessions_;
  const KeptSessions& kept_;
  const CodeRunner& runner_;  // the session's spec, its install, its backend
  WarmPool& warm_;            // gives way to a new session, as kernels_ does
  KernelPool& kernels_;       // ready kernels a plain live session takes
  const Shares& shares_;
  const SecretMask& secrets_;
  const AuditTrail& audit_;
};

}  // namespace paddock::app
