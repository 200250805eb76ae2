#include "app/session_snapshots.h"

#include "app/kept_sessions.h"
#include "state/state_names.h"

namespace paddock::app {

core::Result<SnapshotTaken> SessionSnapshots::take(const std::string& session,
                                                   const std::string& snapshot,
                                                   const std::string& field) const {
  if (auto valid = state::check_state_name(snapshot, field); !valid) return valid.error();
  if (auto keeps = kept_.check_keeps_sessions(); !keeps) return keeps.error();
  if (auto room = kept_.check_state_room(); !room) {
    return room.error().context("no snapshot taken");
  }
  SnapshotTaken taken;
  std::uint64_t room = kept_.state_disk_room();
  // Whatever happens below, the state directory's size is measured again next time.
  kept_.dir()->note_changed();
  auto done = kept_.with_workspace(session, [&](state::SavedWorkspace& workspace) -> core::Status {
    if (auto made = workspace.snapshot(snapshot, room); !made) return made;
    taken = {workspace.info().id, snapshot, workspace.info().files, workspace.info().bytes};
    return {};
  });
  if (!done) return done.error();
  return taken;
}

core::Result<SessionChanges> SessionSnapshots::changes(const std::string& session,
                                                       const std::string& since,
                                                       const std::string& field) const {
  if (!since.empty()) {
    if (auto valid = state::check_state_name(since, field); !valid) return valid.error();
  }
  SessionChanges found;
  auto done = kept_.with_workspace(session, [&](state::SavedWorkspace& workspace) -> core::Status {
    found.session_id = workspace.info().id;
    auto diff = workspace.diff(since.empty() ? state::kCreatedSnapshot : since);
    if (!diff) return diff.error();
    found.changes = std::move(*diff);
    return {};
  });
  if (!done) return done.error();
  return found;
}

}  // namespace paddock::app
