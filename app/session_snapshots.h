#pragma once

// A kept session's workspace saved by name (snapshot_session), and what changed in it since it
// began or since a snapshot (diff_session). The tools in mcp/tools/session_snapshots.cc only
// turn JSON into these calls and their results into content.

#include <cstdint>
#include <string>
#include <vector>

#include "app/kept_sessions.h"
#include "core/result.h"
#include "state/saved_workspace.h"

namespace paddock::app {

// One path that was added, changed or deleted.
using SessionChange = state::DiffEntry;

struct SnapshotTaken {
  std::string session_id;
  std::string snapshot;
  std::uint64_t files = 0;  // entries in the workspace
  std::uint64_t bytes = 0;
};

struct SessionChanges {
  std::string session_id;
  std::vector<SessionChange> changes;
};

class SessionSnapshots {
 public:
  explicit SessionSnapshots(const KeptSessions& kept) : kept_(kept) {}

  // Refused when `snapshot` is not a name a state directory takes (the error names it `field`,
  // the argument it came from), when the server keeps no sessions, or when --state-disk leaves
  // no room.
  core::Result<SnapshotTaken> take(const std::string& session, const std::string& snapshot,
                                   const std::string& field) const;
  // Since the session began when `since` is empty.
  core::Result<SessionChanges> changes(const std::string& session, const std::string& since,
                                       const std::string& field) const;

 private:
  const KeptSessions& kept_;
};

}  // namespace paddock::app
