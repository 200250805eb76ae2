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

#include "app/server_state.h"
#include "app/session_registry.h"
#include "app/shares.h"
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
  PullProgress pull;
  RunObserver& install;
};

class SessionService {
 public:
  SessionService(ServerState& state, std::string default_language)
      : state_(state), default_language_(std::move(default_language)) {}

  // `tool` names the caller in the audit log (create_session or fork_session).
  Result<CreatedSession> create(const SessionRequest& request, const CreationProgress& progress,
                                const std::string& tool) const;
  // A snapshot of `source` (the first free "fork-N") and a new session from it. The snapshot's
  // name is given back in `snapshot`.
  Result<CreatedSession> fork(const std::string& source, SessionRequest request,
                              const CreationProgress& progress, std::string& snapshot) const;

 private:
  ServerState& state_;
  std::string default_language_;
};

}  // namespace paddock::app
