#pragma once

// The state directory (`paddock mcp --state-dir`): every kept session's workspace
// (state/saved_workspace.h) and the names callers gave them.
//
//   DIR/                 0700, the server user's
//   DIR/sessions/<id>/   one workspace
//   DIR/names/<name>     a symlink to the id: a name is taken by creating it, so two servers
//                        sharing the directory never give one name twice
//
// Several servers may share it (two MCP clients started one each): each session is locked by
// the one server that has it open, and the others refuse to open it.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "state/saved_workspace.h"

namespace paddock::state {

struct KeptSession {
  WorkspaceInfo info;
  bool in_use = false;  // open in a server (this one or another)
};

class StateDir {
 public:
  // Makes the directory (and its parents, 0700) when missing. Refused when it, sessions/,
  // names/ or an entry of theirs belongs to another user (one line naming it); each folder is
  // made 0700 when it is more open, before what it holds is looked at.
  static core::Result<std::unique_ptr<StateDir>> open(const std::string& path);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] int sessions_fd() const { return sessions_.get(); }

  // The id of the session `id_or_name` names on disk; ENOENT when none.
  core::Result<std::string> resolve(const std::string& id_or_name) const;
  // Gives `id` the name `name` (check_state_name first); EEXIST when it is taken.
  core::Status claim_name(const std::string& name, const std::string& id);
  // Frees the name, if it still names `id`.
  void release_name(const std::string& name, const std::string& id);

  ~StateDir();  // after the walk beside the callers, if one runs

  // Every complete session on disk, by last use (most recent first).
  std::vector<KeptSession> list() const;
  // Bytes the directory takes, each file counted once however many generations and snapshots
  // link it. A walk of the whole directory costs about 1 ms per thousand entries, too much for
  // every save: between walks, what this server's saves wrote since (note_written) is added to
  // the last walk's figure, so that it errs high (what saves freed is not subtracted), never low.
  // The caller waits for a walk only where the figure decides: the first one, one after an
  // unmeasured write (note_changed), and one when the figure comes within a tenth of `limit`.
  // Otherwise a walk older than 10 s (what another server wrote) is renewed on a thread of its
  // own, and the caller gets the figure it has.
  [[nodiscard]] std::uint64_t disk_bytes(std::uint64_t limit = 0) const;
  void note_written(std::uint64_t bytes);
  // After a write that was not measured (a snapshot, a session filled from one): the next
  // disk_bytes walks again.
  void note_changed();
  // How old a walk may get before one is started beside the callers (10 s); for tests.
  void set_walk_period(std::chrono::milliseconds period);
  // Removes the sessions not used for `retention_seconds` that no server has open; returns
  // what was removed. Also removes what a creation that did not finish left.
  std::vector<WorkspaceInfo> remove_unused(double retention_seconds);
  // Removes the session and frees its name.
  core::Status remove(SavedWorkspace& workspace);

 private:
  StateDir(std::string path, core::UniqueFd root, core::UniqueFd sessions, core::UniqueFd names)
      : path_(std::move(path)),
        root_(std::move(root)),
        sessions_(std::move(sessions)),
        names_(std::move(names)) {}

  std::uint64_t walk_disk_bytes() const;
  // Both with meter_mutex_ held: a walk the caller waits for, and one beside the callers (`lock`
  // is the caller's), started where none runs.
  void walk_here(std::chrono::steady_clock::time_point now) const;
  void walk_beside_callers(std::unique_lock<std::mutex>& lock) const;

  std::string path_;
  mutable std::mutex meter_mutex_;
  mutable std::uint64_t walked_bytes_ = 0;
  mutable std::uint64_t written_since_walk_ = 0;
  mutable std::chrono::steady_clock::time_point walked_at_{};
  mutable bool walked_ = false;
  mutable std::uint64_t walk_number_ = 0;  // which walk's figure walked_bytes_ is
  mutable bool walking_beside_ = false;
  mutable std::thread walk_beside_;
  std::chrono::milliseconds walk_period_{10'000};
  core::UniqueFd root_;
  core::UniqueFd sessions_;
  core::UniqueFd names_;
};

}  // namespace paddock::state
