#include "app/session_service.h"

#include <algorithm>

#include "app/audit_log.h"
#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "app/live_session.h"
#include "core/text.h"
#include "language/language_run.h"
#include "state/state_names.h"
#include "state/workspace_archive.h"

namespace paddock::app {
namespace {

// Writes a new session's files into its workspace, before anything runs in it.
using WorkspaceFill = std::function<Status(int workspace)>;

// Undoes a session's creation unless it is committed. Each step tells the guard what it now
// holds; on failure the destructor lets go of it in the reverse order: the kept workspace, the
// registered session (with its sandbox and previews), the reserved slot, an untaken ready kernel.
class SessionRollback {
 public:
  explicit SessionRollback(ServerState& state) : state_(state) {}
  SessionRollback(const SessionRollback&) = delete;
  SessionRollback& operator=(const SessionRollback&) = delete;
  ~SessionRollback() {
    if (committed_) return;
    if (entry_) {
      state_.sessions().close(entry_->id);
      std::lock_guard lock(entry_->run_mutex);
      if (entry_->kept) (void)state_.state_dir()->remove(*entry_->kept);
      entry_->kept.reset();
    } else if (reserved_) {
      state_.sessions().unreserve();
    }
    state_.kernels().retire(std::move(ready_));
  }

  void hold_ready(std::unique_ptr<ReadyKernel> ready) { ready_ = std::move(ready); }
  std::unique_ptr<ReadyKernel>& ready() { return ready_; }
  void reserved() { reserved_ = true; }
  // The registry took the reserved slot: closing the entry gives it back.
  void registered(std::shared_ptr<SessionEntry> entry) { entry_ = std::move(entry); }
  void commit() { committed_ = true; }

 private:
  ServerState& state_;
  std::unique_ptr<ReadyKernel> ready_;
  bool reserved_ = false;
  std::shared_ptr<SessionEntry> entry_;
  bool committed_ = false;
};

// Fills a new workspace from an archive in a share, under the image layers' rules
// (state/workspace_archive.h), within the session's quotas.
Result<WorkspaceFill> archive_fill(const ServerState& state, const std::string& host_path) {
  auto where = state.shares().locate(host_path);
  if (!where) return where.error();
  auto archive = open_share_for_reading(*where);
  if (!archive) return archive.error();
  auto held = std::make_shared<UniqueFd>(std::move(*archive));
  state::ArchiveLimits limits;
  limits.max_bytes = state.options().session_disk.value_or(SandboxLimits{}.work_bytes);
  limits.max_entries = state.options().session_files;
  std::string shown = where->shown();
  return WorkspaceFill([held, limits, shown](int target) -> Status {
    auto imported = state::import_tree(held->get(), target, limits);
    if (!imported) return imported.error().context("importing " + shown);
    return {};
  });
}

// Links a snapshot's files into a new workspace; `language` becomes the snapshot's session's.
Result<WorkspaceFill> snapshot_fill(ServerState& state, const SessionRequest::Snapshot& from,
                                    std::string& language) {
  if (auto valid = state::check_state_name(from.name, "snapshot"); !valid) return valid.error();
  std::string source_language;
  WorkspaceFill fill;
  auto shared =
      with_workspace(state, from.session, [&](state::SavedWorkspace& workspace) -> Status {
        source_language = workspace.info().language;
        auto files = workspace.files(from.name);
        if (!files) return files.error();
        // Linked now, while the source is held: a later change of it makes new files.
        auto held = std::make_shared<UniqueFd>(std::move(*files));
        std::uint64_t room = state_disk_room(state);
        fill = [held, room](int target) -> Status {
          auto linked = state::link_tree(held->get(), target, room);
          if (linked) return {};
          if (linked.error().code != ENOSPC) return linked.error();
          return Error{ENOSPC, "the state directory has no room for a copy of the snapshot: " +
                                   linked.error().message};
        };
        return {};
      });
  if (!shared) return shared.error();
  if (language.empty()) language = source_language;
  if (language != source_language) {
    return invalid_input("snapshot '" + from.name + "' is of a " + source_language +
                         " session; a " + language + " session cannot start from it");
  }
  return fill;
}

// What the request's name, snapshot or archive ask of the state directory, checked before any
// sandbox is made. The fill is empty when the session starts with an empty workspace.
Result<WorkspaceFill> kept_source(ServerState& state, const SessionRequest& request,
                                  std::string& language) {
  if (request.name.empty() && !request.from_snapshot && !request.from_archive) {
    return WorkspaceFill{};
  }
  if (auto keeps = check_keeps_sessions(state); !keeps) return keeps.error();
  if (!request.name.empty()) {
    if (auto valid = state::check_state_name(request.name, "name"); !valid) return valid.error();
    if (state.sessions().find(request.name) || state.state_dir()->resolve(request.name)) {
      return invalid_input("a session named '" + request.name +
                           "' exists already: choose another name, or use that session");
    }
  }
  if (request.from_archive && request.from_snapshot) {
    return invalid_input("give from_snapshot or from_archive, not both");
  }
  if (request.from_archive) return archive_fill(state, *request.from_archive);
  if (request.from_snapshot) return snapshot_fill(state, *request.from_snapshot, language);
  return WorkspaceFill{};
}

// The binds of the shares the request mounts; the mounts are checked against each other and the
// language's own folders, and their paths completed.
Result<std::vector<BindMount>> share_binds(const ServerState& state, const LanguagePolicy& policy,
                                           std::vector<ShareMount>& mounts) {
  std::vector<BindMount> binds;
  if (mounts.empty()) return binds;
  std::string workdir = SandboxShape{}.workdir;
  std::vector<std::string> own_folders = language_own_folders(policy, workdir);
  for (ShareMount& mount : mounts) {
    auto bind = share_bind(state.shares(), mount, workdir, own_folders);
    if (!bind) return bind.error();
    for (const auto& other : binds) {
      if (other.sandbox_path == bind->sandbox_path) {
        return invalid_input("mounts: two mounts at " + bind->sandbox_path);
      }
    }
    binds.push_back(std::move(*bind));
  }
  // After the shares are checked, so that a wrong name is what the model hears first.
  if (!state.backend().abilities().mounts) {
    return invalid_input("mounts work on the native backend only; on " +
                         std::string(state.backend().name()) +
                         " copy files in and out with upload_file and download_file instead");
  }
  return binds;
}

// The model knows shares by name: a refusal about a mount's folder says its share instead.
std::string without_host_paths(const Shares& shares, std::string message) {
  for (const auto& share : shares.all()) {
    for (std::size_t at; (at = message.find(share.host_dir)) != std::string::npos;) {
      message.replace(at, share.host_dir.size(), "share '" + share.name + "'");
    }
  }
  return message;
}

// One audit line for the mounts of a session, whether it opened or not.
void record_mounts(const ServerState& state, const LanguagePolicy& policy, const Limits& limits,
                   const std::vector<ShareMount>& mounts, const std::string& outcome) {
  if (mounts.empty()) return;
  AuditRecord record;
  record.tool = "create_session";
  record.language = policy.name;
  record.backend = state.backend().name();
  record.limits = limits;
  record.outcome = outcome;
  for (const auto& mount : mounts) {
    HostFileRecord file;
    file.action = "mount";
    file.host_path = state.shares().find(mount.share)->host_dir;
    file.session_path = mount.path;
    file.writable = mount.writable;
    record.host_files.push_back(std::move(file));
  }
  state.record(record);
}

// Gives a registered kept session its workspace on disk, filled when `fill` says so.
Status keep_on_disk(ServerState& state, SessionEntry& entry, const SessionRequest& request,
                    const std::string& language, const WorkspaceFill& fill) {
  auto workspace = make_kept_workspace(state, entry.id, request.name, language, fill);
  if (!workspace) return workspace.error();
  std::lock_guard lock(entry.run_mutex);
  entry.kept = std::move(*workspace);
  attach_state_disk_room(state, entry);
  entry.name = request.name;
  if (fill) return restore_session_files(entry);
  return {};
}

// Marks the session's first files as its start, for diff_session; why it could not, or empty.
std::string mark_start(ServerState& state, SessionEntry& entry) {
  std::string not_kept = keep_session_files(entry);
  if (!not_kept.empty() || !entry.kept) return not_kept;
  std::lock_guard lock(entry.run_mutex);
  auto marked = entry.kept->mark_created(state_disk_room(state));
  state.state_dir()->note_changed();
  if (marked) return {};
  return "the session's start could not be kept for diff_session: " + marked.error().message;
}

}  // namespace

Result<CreatedSession> SessionService::create(const SessionRequest& request,
                                              const CreationProgress& progress,
                                              const std::string& tool) const {
  std::string language = request.language;
  auto fill = kept_source(state_, request, language);
  if (!fill) return fill.error();
  if (language.empty()) language = default_language_;
  auto policy = state_.policies().find(language);
  if (!policy) return policy.error();
  // The shares' binds go into the builder with the rest: the shape is never patched after.
  std::vector<ShareMount> mounts = request.mounts;
  auto binds = share_binds(state_, **policy, mounts);
  if (!binds) return binds.error();
  auto spec = session_spec(state_, **policy, progress.pull, *binds);
  if (!spec) return spec.error();
  bool kept = state_.state_dir() != nullptr;
  std::uint64_t full_size = spec->shape.limits.work_bytes;
  if (kept) {
    auto room = kept_session_room(state_, full_size, 0);
    if (!room) return room.error();
    spec->shape.limits.work_bytes = *room;
  }
  SessionRollback rollback(state_);
  // A plain live session takes a sandbox whose kernel is ready, when one waits; the pool keeps
  // one waiting for the language's next from now on.
  if (request.live && request.libraries.empty() && binds->empty() && !*fill &&
      spec->shape.limits.work_bytes == full_size && !(*policy)->kernel.name.empty()) {
    rollback.hold_ready(
        state_.kernels().take((*policy)->name, spec->shape, std::nullopt, spec->plan));
  }
  if (auto room = state_.sessions().reserve(); !room) return room.error();
  rollback.reserved();
  // Warm sandboxes and ready kernels give way: with the sessions they stay within
  // --max-sessions.
  state_.warm().fit();
  state_.kernels().fit();
  std::unique_ptr<ReadyKernel>& ready = rollback.ready();
  std::unique_ptr<LiveKernel> kernel = ready ? std::move(ready->kernel) : nullptr;
  auto opened = ready ? Result<std::unique_ptr<Session>>(std::move(ready->session))
                      : state_.backend().open_session(spec->shape, spec->plan);
  ready.reset();
  Limits limits = limits_of(spec->shape.limits, spec->plan);
  record_mounts(state_, **policy, limits, mounts, opened ? "done" : "error");
  if (!opened) {
    // The setting kept: the front-end says how to set what would fix it.
    return Error{opened.error().code,
                 "could not create the session: " +
                     without_host_paths(state_.shares(), opened.error().message),
                 ErrorKind::kOther, opened.error().setting};
  }
  auto entry =
      state_.sessions().add(std::move(*opened), **policy,
                            request.ttl_seconds.value_or(state_.options().session_idle_seconds));
  rollback.registered(entry);
  // In use while it is set up: neither frozen nor expired under its install or kernel start.
  SessionLease setting_up(entry);
  entry->limits = limits;
  entry->mounts = std::move(mounts);
  if (kept) {
    if (auto on_disk = keep_on_disk(state_, *entry, request, (*policy)->name, *fill); !on_disk) {
      return Error{on_disk.error().code, "could not create the session: " + on_disk.error().message,
                   ErrorKind::kOther, on_disk.error().setting};
    }
  }
  CreatedSession created{entry, "session " + entry->id + " (" + (*policy)->name + ")", {}};
  if (!request.name.empty()) created.summary += " named " + request.name;
  if (!request.libraries.empty()) {
    auto installed = install_in_session(*entry, state_, request.libraries, progress.install, tool);
    if (auto why = install_failure(installed)) {
      return Error{EINVAL, "installing libraries failed, so the session was closed: " + *why};
    }
    created.summary +=
        " with " + counted(request.libraries.size(), "library", "libraries") + " installed";
  }
  // After the install: the interpreter starts with the libraries there.
  {
    std::lock_guard lock(entry->run_mutex);
    if (kernel) {
      adopt_interpreter(*entry, std::move(kernel));
    } else {
      start_interpreter(*entry, request.live, state_.secrets());
    }
  }
  rollback.commit();
  created.not_kept = mark_start(state_, *entry);
  for (const auto& mount : entry->mounts) {
    created.summary += "; share " + mount.share + " mounted at " + mount.path +
                       (mount.writable ? " (read-write)" : " (read-only)");
  }
  return created;
}

Result<CreatedSession> SessionService::fork(const std::string& source, SessionRequest request,
                                            const CreationProgress& progress,
                                            std::string& snapshot) const {
  if (auto keeps = check_keeps_sessions(state_); !keeps) return keeps.error();
  if (auto room = check_state_room(state_); !room) {
    return Error{room.error().code, "no fork made: " + room.error().message};
  }
  std::uint64_t room = state_disk_room(state_);
  auto made = with_workspace(state_, source, [&](state::SavedWorkspace& workspace) {
    // A name of its own: the first free "fork-N".
    auto taken = workspace.snapshots();
    for (int n = 1;; ++n) {
      snapshot = "fork-" + std::to_string(n);
      if (!taken || std::none_of(taken->begin(), taken->end(),
                                 [&](const auto& one) { return one.name == snapshot; })) {
        break;
      }
    }
    return workspace.snapshot(snapshot, room);
  });
  state_.state_dir()->note_changed();
  if (!made) return made.error();
  request.from_snapshot = SessionRequest::Snapshot{source, snapshot};
  return create(request, progress, "fork_session");
}

}  // namespace paddock::app
