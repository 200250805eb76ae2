#pragma once

// Sessions kept on disk (docs/sessions.md, "Sessions that last"): each session's work directory
// is written to its workspace in the state directory (state/) after every call that may change
// it, and a later server reopens it from there with its files and libraries.

#include <functional>
#include <memory>
#include <string>

#include "app/server_state.h"
#include "core/result.h"

namespace paddock::app {

// Writes the session's work directory as its workspace's new generation, when it is kept; takes
// its run_mutex. Empty, or one line saying what could not be kept (the call itself is done).
std::string keep_session_files(SessionEntry& entry);

// Opens the kept session `id_or_name` (by id or name) that no session of this server holds:
// a new sandbox, filled from its workspace, its interpreter started again. ENOENT when there is
// none on disk.
Result<std::shared_ptr<SessionEntry>> reopen_kept_session(ServerState& state,
                                                          const std::string& id_or_name);

// A new session's workspace on disk, named `name` (may be empty), its first generation written
// by `fill` (nothing, a snapshot's files, an archive's); the name is claimed first. Null, with
// no error, when the server keeps no sessions.
Result<std::unique_ptr<state::SavedWorkspace>> make_kept_workspace(
    ServerState& state, const std::string& id, const std::string& name, const std::string& language,
    const std::function<Status(int files_fd)>& fill = {});

// Fills a session's work directory from its workspace (a reopened or forked session), then
// records what it holds; under its run_mutex (`run`).
Status restore_session_files(SessionEntry::RunAccess& run);

// The size a kept session's work directory may have so that the state directory stays under
// --state-disk: `wanted`, or less. A new session (`own_bytes` 0) is refused (ENOSPC) when there
// is no room left; a kept one being reopened (`own_bytes`: its used_bytes) never is, and gets at
// least what it holds.
Result<std::uint64_t> kept_session_room(ServerState& state, std::uint64_t wanted,
                                        std::uint64_t own_bytes);

// Lets the session's saves check the room --state-disk leaves before they write (its workspace
// kept, under its run_mutex: `run`).
void attach_state_disk_room(ServerState& state, SessionEntry::RunAccess& run);

// The kept session `id_or_name` that no server has open, locked while held. ENOENT when there is
// none, EBUSY when another server has it open.
Result<std::unique_ptr<state::SavedWorkspace>> closed_kept_session(ServerState& state,
                                                                   const std::string& id_or_name);

// Runs `use` with the kept session `id_or_name`'s workspace: an open one's under its run_mutex,
// else one no server has open, locked meanwhile.
Status with_workspace(ServerState& state, const std::string& id_or_name,
                      const std::function<Status(state::SavedWorkspace&)>& use);

// What may still be written to the state directory under --state-disk (a snapshot's folders).
std::uint64_t state_disk_room(ServerState& state);

// Refuses (ENOSPC) when the state directory has no room left under --state-disk: before a
// snapshot, which keeps data that later saves would otherwise let go.
Status check_state_room(ServerState& state);

// Refuses what needs sessions kept on disk (names, snapshots, forks) on a server that keeps none.
Status check_keeps_sessions(const ServerState& state);

// Removes kept sessions unused for --session-retention, with an audit line each.
void remove_unused_sessions(ServerState& state);

}  // namespace paddock::app
