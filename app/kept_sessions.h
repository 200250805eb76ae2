#pragma once

// Sessions kept on disk (docs/sessions.md, "Sessions that last"): each session's work directory
// is written to its workspace in the state directory (state/) after every call that may change
// it, and a later server reopens it from there with its files and libraries.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/audit_trail.h"
#include "app/code_runner.h"
#include "app/live_session.h"
#include "app/server_config.h"
#include "app/session_registry.h"
#include "app/warm_pool.h"
#include "core/result.h"
#include "language/policy_store.h"
#include "state/state_dir.h"

namespace paddock::app {

// Writes the session's work directory as its workspace's new generation, when it is kept; takes
// its run_mutex. Empty, or one line saying what could not be kept (the call itself is done).
std::string keep_session_files(SessionEntry& entry);

// Fills a session's work directory from its workspace (a reopened or forked session), then
// records what it holds; under its run_mutex (`run`).
core::Status restore_session_files(SessionEntry::RunAccess& run);

// The sessions this server keeps in its state directory, with what keeping them takes: the
// directory (null when the server keeps none), the open sessions, and for a reopen the
// policies, the runner that builds a session's spec, the pools that give way, the secrets a
// restarted interpreter masks and the audit log.
class KeptSessions {
 public:
  KeptSessions(const ServerOptions& options, state::StateDir* dir, SessionRegistry& sessions,
               const language::PolicyStore& policies, const CodeRunner& runner, WarmPool& warm,
               KernelPool& kernels, const SecretMask& secrets, const AuditTrail& audit)
      : options_(options),
        dir_(dir),
        sessions_(sessions),
        policies_(policies),
        runner_(runner),
        warm_(warm),
        kernels_(kernels),
        secrets_(secrets),
        audit_(audit) {}

  // Where sessions are kept; null when they are not.
  [[nodiscard]] state::StateDir* dir() const { return dir_; }

  // Opens the kept session `id_or_name` (by id or name) that no session of this server holds:
  // a new sandbox, filled from its workspace, its interpreter started again. ENOENT when there
  // is none on disk.
  core::Result<std::shared_ptr<SessionEntry>> reopen(const std::string& id_or_name) const;

  // A new session's workspace on disk, named `name` (may be empty), its first generation
  // written by `fill` (nothing, a snapshot's files, an archive's); the name is claimed first.
  // Null, with no error, when the server keeps no sessions.
  core::Result<std::unique_ptr<state::SavedWorkspace>> make_workspace(
      const std::string& id, const std::string& name, const std::string& language,
      const std::function<core::Status(int files_fd)>& fill = {}) const;

  // The size a kept session's work directory may have so that the state directory stays under
  // --state-disk: `wanted`, or less. A new session (`own_bytes` 0) is refused (ENOSPC) when
  // there is no room left; a kept one being reopened (`own_bytes`: its used_bytes) never is, and
  // gets at least what it holds.
  core::Result<std::uint64_t> room_for(std::uint64_t wanted, std::uint64_t own_bytes) const;

  // Lets the session's saves check the room --state-disk leaves before they write (its workspace
  // kept, under its run_mutex: `run`).
  void attach_state_disk_room(SessionEntry::RunAccess& run) const;

  // The kept session `id_or_name` that no server has open, locked while held. ENOENT when there
  // is none, EBUSY when another server has it open.
  core::Result<std::unique_ptr<state::SavedWorkspace>> closed(const std::string& id_or_name) const;

  // Runs `use` with the kept session `id_or_name`'s workspace: an open one's under its
  // run_mutex, else one no server has open, locked meanwhile.
  core::Status with_workspace(const std::string& id_or_name,
                              const std::function<core::Status(state::SavedWorkspace&)>& use) const;

  // What may still be written to the state directory under --state-disk (a snapshot's folders).
  std::uint64_t state_disk_room() const;

  // Refuses (ENOSPC) when the state directory has no room left under --state-disk: before a
  // snapshot, which keeps data that later saves would otherwise let go.
  core::Status check_state_room() const;

  // Refuses what needs sessions kept on disk (names, snapshots, forks) on a server that keeps
  // none.
  core::Status check_keeps_sessions() const;

  // The sessions on disk that no session of this server holds (list_sessions), by last use;
  // none when the server keeps no sessions.
  [[nodiscard]] std::vector<state::KeptSession> not_open() const;

  // Removes kept sessions unused for --session-retention, with an audit line each.
  void remove_unused() const;

 private:
  // What the state directory holds, plus what the open kept sessions but `except` may still
  // write before their next save.
  std::uint64_t committed(const SessionEntry* except) const;

  const ServerOptions& options_;
  state::StateDir* const dir_;
  SessionRegistry& sessions_;
  const language::PolicyStore& policies_;
  const CodeRunner& runner_;
  WarmPool& warm_;
  KernelPool& kernels_;
  const SecretMask& secrets_;
  const AuditTrail& audit_;
};

}  // namespace paddock::app
