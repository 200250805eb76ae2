#include "app/session_service.h"

#include <algorithm>
#include <chrono>

#include "app/audit_log.h"
#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "app/live_session.h"
#include "core/text.h"
#include "language/language_run.h"
#include "state/state_names.h"
#include "state/workspace_archive.h"

namespace paddock::app {

// How long a create_session waits for the ready kernel the pool is starting before it starts its
// own: one starts in about a second here, and far longer only on a stalled machine.
constexpr std::chrono::seconds kRefillPatience{15};

namespace {

// Writes a new session's files into its workspace, before anything runs in it.
using WorkspaceFill = std::function<core::Status(int workspace)>;

// Undoes a session's creation unless it is committed. Each step tells the guard what it now
// holds; on failure the destructor lets go of it in the reverse order: the kept workspace, the
// registered session (with its sandbox and previews), the reserved slot, an untaken ready kernel.
class SessionRollback {
 public:
  SessionRollback(SessionRegistry& sessions, const KeptSessions& kept, KernelPool& kernels)
      : sessions_(sessions), kept_(kept), kernels_(kernels) {}
  SessionRollback(const SessionRollback&) = delete;
  SessionRollback& operator=(const SessionRollback&) = delete;
  ~SessionRollback() {
    if (committed_) return;
    if (entry_) {
      sessions_.close(entry_->id());
      auto run = entry_->lock_run();
      if (run.kept()) (void)kept_.dir()->remove(*run.kept());
      run.set_kept(nullptr);
    } else if (reserved_) {
      sessions_.unreserve();
    }
    kernels_.retire(std::move(ready_));
  }

  void hold_ready(std::unique_ptr<ReadyKernel> ready) { ready_ = std::move(ready); }
  std::unique_ptr<ReadyKernel>& ready() { return ready_; }
  void reserved() { reserved_ = true; }
  // The registry took the reserved slot: closing the entry gives it back.
  void registered(std::shared_ptr<SessionEntry> entry) { entry_ = std::move(entry); }
  void commit() { committed_ = true; }

 private:
  SessionRegistry& sessions_;
  const KeptSessions& kept_;
  KernelPool& kernels_;
  std::unique_ptr<ReadyKernel> ready_;
  bool reserved_ = false;
  std::shared_ptr<SessionEntry> entry_;
  bool committed_ = false;
};

// Fills a new workspace from an archive in a share, under the image layers' rules
// (state/workspace_archive.h), within the session's quotas.
core::Result<WorkspaceFill> archive_fill(const Shares& shares, const ServerOptions& options,
                                         const std::string& host_path) {
  auto where = shares.locate(host_path);
  if (!where) return where.error();
  auto archive = open_share_for_reading(*where);
  if (!archive) return archive.error();
  auto held = std::make_shared<core::UniqueFd>(std::move(*archive));
  state::ArchiveLimits limits;
  limits.max_bytes = options.session_disk.value_or(runtime::SandboxLimits{}.work_bytes);
  limits.max_entries = options.session_files;
  std::string shown = where->shown();
  return WorkspaceFill([held, limits, shown](int target) -> core::Status {
    auto imported = state::import_tree(held->get(), target, limits);
    if (!imported) return imported.error().context("importing " + shown);
    return {};
  });
}

// Links a snapshot's files into a new workspace; `language` becomes the snapshot's session's.
core::Result<WorkspaceFill> snapshot_fill(const KeptSessions& kept,
                                          const SessionRequest::Snapshot& from,
                                          std::string& language) {
  if (auto valid = state::check_state_name(from.name, "snapshot"); !valid) return valid.error();
  std::string source_language;
  WorkspaceFill fill;
  auto shared =
      kept.with_workspace(from.session, [&](state::SavedWorkspace& workspace) -> core::Status {
        source_language = workspace.info().language;
        auto files = workspace.files(from.name);
        if (!files) return files.error();
        // Linked now, while the source is held: a later change of it makes new files.
        auto held = std::make_shared<core::UniqueFd>(std::move(*files));
        std::uint64_t room = kept.state_disk_room();
        fill = [held, room](int target) -> core::Status {
          auto linked = state::link_tree(held->get(), target, room);
          if (linked) return {};
          if (linked.error().code != ENOSPC) return linked.error();
          return core::Error{ENOSPC,
                             "the state directory has no room for a copy of the snapshot: " +
                                 linked.error().message};
        };
        return {};
      });
  if (!shared) return shared.error();
  if (language.empty()) language = source_language;
  if (language != source_language) {
    return core::invalid_input("snapshot '" + from.name + "' is of a " + source_language +
                               " session; a " + language + " session cannot start from it");
  }
  return fill;
}

// What the request's name, snapshot or archive ask of the state directory, checked before any
// sandbox is made. The fill is empty when the session starts with an empty workspace.
}  // namespace

core::Result<SessionService::WorkspaceFill> SessionService::kept_source(
    const SessionRequest& request, std::string& language) const {
  if (request.name.empty() && !request.from_snapshot && !request.from_archive) {
    return WorkspaceFill{};
  }
  if (auto keeps = kept_.check_keeps_sessions(); !keeps) return keeps.error();
  if (!request.name.empty()) {
    if (auto valid = state::check_state_name(request.name, "name"); !valid) return valid.error();
    if (sessions_.find(request.name) || kept_.dir()->resolve(request.name)) {
      return core::invalid_input("a session named '" + request.name +
                                 "' exists already: choose another name, or use that session");
    }
  }
  if (request.from_archive && request.from_snapshot) {
    return core::invalid_input("give from_snapshot or from_archive, not both");
  }
  if (request.from_archive) return archive_fill(shares_, options_, *request.from_archive);
  if (request.from_snapshot) return snapshot_fill(kept_, *request.from_snapshot, language);
  return WorkspaceFill{};
}

namespace {

// The binds of the shares the request mounts; the mounts are checked against each other and the
// language's own folders, and their paths completed.
core::Result<std::vector<runtime::BindMount>> share_binds(const Shares& shares,
                                                          const runtime::Backend& backend,
                                                          const language::LanguagePolicy& policy,
                                                          std::vector<ShareMount>& mounts) {
  std::vector<runtime::BindMount> binds;
  if (mounts.empty()) return binds;
  std::string workdir = runtime::SandboxShape{}.workdir;
  std::vector<std::string> own_folders = language::language_own_folders(policy, workdir);
  for (ShareMount& mount : mounts) {
    auto bind = share_bind(shares, mount, workdir, own_folders);
    if (!bind) return bind.error();
    for (const auto& other : binds) {
      if (other.sandbox_path == bind->sandbox_path) {
        return core::invalid_input("mounts: two mounts at " + bind->sandbox_path);
      }
    }
    binds.push_back(std::move(*bind));
  }
  // After the shares are checked, so that a wrong name is what the model hears first.
  if (!backend.abilities().mounts) {
    return core::invalid_input("mounts work on the native backend only; on " +
                               std::string(backend.name()) +
                               " copy files in and out with upload_file and download_file instead");
  }
  return binds;
}

// The model knows shares by name: a refusal about a mount's folder says its share instead.
std::string without_host_paths(const Shares& shares, std::string message) {
  for (const auto& share : shares.all()) {
    for (std::size_t at; (at = message.find(share->host_dir)) != std::string::npos;) {
      message.replace(at, share->host_dir.size(), "share '" + share->name + "'");
    }
  }
  return message;
}

// One audit line for the mounts of a session, whether it opened or not.
}  // namespace

void SessionService::record_mounts(const language::LanguagePolicy& policy,
                                   const runtime::Limits& limits,
                                   const std::vector<ShareMount>& mounts,
                                   const std::string& outcome) const {
  if (mounts.empty()) return;
  AuditRecord record;
  record.tool = "create_session";
  record.language = policy.name;
  record.backend = runner_.backend().name();
  record.limits = limits;
  record.outcome = outcome;
  for (const auto& mount : mounts) {
    HostFileRecord file;
    file.action = "mount";
    // The share may have been withdrawn since (a root the client no longer lists).
    SharePtr share = shares_.find(mount.share);
    file.host_path = share ? share->host_dir : "share " + mount.share;
    file.session_path = mount.path;
    file.writable = mount.writable;
    record.host_files.push_back(std::move(file));
  }
  audit_.record(record);
}

namespace {

// Gives a registered kept session its workspace on disk, filled when `fill` says so.
core::Status keep_on_disk(const KeptSessions& kept, SessionEntry& entry,
                          const SessionRequest& request, const std::string& language,
                          const WorkspaceFill& fill) {
  auto workspace = kept.make_workspace(entry.id(), request.name, language, fill);
  if (!workspace) return workspace.error();
  auto run = entry.lock_run();
  run.set_kept(std::move(*workspace));
  kept.attach_state_disk_room(run);
  if (fill) return restore_session_files(run);
  return {};
}

// Marks the session's first files as its start, for diff_session; why it could not, or empty.
std::string mark_start(const KeptSessions& kept, SessionEntry& entry) {
  std::string not_kept = keep_session_files(entry);
  if (!not_kept.empty() || !entry.kept_on_disk()) return not_kept;
  auto run = entry.lock_run();
  if (!run.kept()) return not_kept;  // closed meanwhile
  auto marked = run.kept()->mark_created(kept.state_disk_room());
  kept.dir()->note_changed();
  if (marked) return {};
  return "the session's start could not be kept for diff_session: " + marked.error().message;
}

}  // namespace

core::Result<CreatedSession> SessionService::create(const SessionRequest& request,
                                                    const CreationProgress& progress,
                                                    const std::string& tool) const {
  std::string language = request.language;
  auto fill = kept_source(request, language);
  if (!fill) return fill.error();
  if (language.empty()) language = options_.default_language;
  auto policy = policies_.find(language);
  if (!policy) return policy.error();
  if (std::string missing = toolchains_.unavailable(**policy); !missing.empty()) {
    return core::Error{ENOENT, missing};
  }
  // The shares' binds go into the builder with the rest: the shape is never patched after.
  std::vector<ShareMount> mounts = request.mounts;
  auto binds = share_binds(shares_, runner_.backend(), **policy, mounts);
  if (!binds) return binds.error();
  auto spec = runner_.session_spec(**policy, progress.pull, *binds);
  if (!spec) return spec.error();
  std::uint64_t full_size = spec->shape.limits.work_bytes;
  if (kept_.dir() != nullptr) {
    auto room = kept_.room_for(full_size, 0);
    if (!room) return room.error();
    spec->shape.limits.work_bytes = *room;
  }
  SessionRollback rollback(sessions_, kept_, kernels_);
  // A plain live session takes a sandbox whose kernel is ready, when one waits, or the one the
  // pool is starting (a refill begun as the last session was made: starting a second beside it
  // would make both take twice as long); the pool keeps one waiting for the language's next from
  // now on.
  if (request.live && request.libraries.empty() && binds->empty() && !*fill &&
      spec->shape.limits.work_bytes == full_size && !(*policy)->kernel.name.empty()) {
    rollback.hold_ready(
        kernels_.take((*policy)->name, spec->shape, std::nullopt, spec->plan, kRefillPatience));
  }
  if (auto room = sessions_.reserve(); !room) return room.error();
  rollback.reserved();
  // Warm sandboxes and ready kernels give way: with the sessions they stay within
  // --max-sessions.
  warm_.fit();
  kernels_.fit();
  std::unique_ptr<ReadyKernel>& ready = rollback.ready();
  std::unique_ptr<runtime::LiveKernel> kernel = ready ? std::move(ready->kernel) : nullptr;
  auto opened = ready ? core::Result<std::unique_ptr<runtime::Session>>(std::move(ready->session))
                      : runner_.backend().open_session(spec->shape, spec->plan);
  ready.reset();
  runtime::Limits limits = runtime::limits_of(spec->shape.limits, spec->plan);
  record_mounts(**policy, limits, mounts, opened ? "done" : "error");
  if (!opened) {
    // The setting kept: the front-end says how to set what would fix it.
    return core::Error{
        opened.error().code,
        "could not create the session: " + without_host_paths(shares_, opened.error().message),
        core::ErrorKind::kOther, opened.error().setting};
  }
  // A new id; a name only on a server that keeps sessions (one that keeps none refused it).
  SessionSettings settings{"", request.ttl_seconds.value_or(options_.session_idle_seconds), limits,
                           std::move(mounts), kept_.dir() ? request.name : ""};
  auto entry = sessions_.add(std::move(*opened), **policy, std::move(settings));
  rollback.registered(entry);
  // In use while it is set up: neither frozen nor expired under its install or kernel start.
  SessionLease setting_up(entry);
  CreatedSession created{entry, "session " + entry->id() + " (" + (*policy)->name + ")", {}};
  auto done = set_up(*entry, request, *fill, std::move(kernel), progress, tool, created.summary);
  if (!done) return done.error();
  rollback.commit();
  created.not_kept = mark_start(kept_, *entry);
  for (const auto& mount : entry->mounts()) {
    created.summary += "; share " + mount.share + " mounted at " + mount.path +
                       (mount.writable ? " (read-write)" : " (read-only)");
  }
  return created;
}

core::Status SessionService::set_up(SessionEntry& entry, const SessionRequest& request,
                                    const WorkspaceFill& fill,
                                    std::unique_ptr<runtime::LiveKernel> kernel,
                                    const CreationProgress& progress, const std::string& tool,
                                    std::string& summary) const {
  const std::string& language = entry.policy().name;
  if (kept_.dir() != nullptr) {
    if (auto on_disk = keep_on_disk(kept_, entry, request, language, fill); !on_disk) {
      return core::Error{on_disk.error().code,
                         "could not create the session: " + on_disk.error().message,
                         core::ErrorKind::kOther, on_disk.error().setting};
    }
  }
  if (!request.name.empty()) summary += " named " + request.name;
  if (!request.libraries.empty()) {
    auto installed = runner_.install_in_session(entry, request.libraries, progress.install, tool);
    if (auto why = install_failure(installed)) {
      return core::Error{EINVAL, "installing libraries failed, so the session was closed: " + *why};
    }
    summary +=
        " with " + core::counted(request.libraries.size(), "library", "libraries") + " installed";
  }
  // After the install: the interpreter starts with the libraries there.
  auto run = entry.lock_run();
  if (kernel) {
    run.set_live(std::move(kernel));  // a ready kernel's, started before the session
  } else {
    start_interpreter(run, request.live, secrets_);
  }
  return {};
}

core::Result<CreatedSession> SessionService::fork(const std::string& source, SessionRequest request,
                                                  const CreationProgress& progress,
                                                  std::string& snapshot) const {
  if (auto keeps = kept_.check_keeps_sessions(); !keeps) return keeps.error();
  if (auto room = kept_.check_state_room(); !room) {
    return core::Error{room.error().code, "no fork made: " + room.error().message};
  }
  std::uint64_t room = kept_.state_disk_room();
  auto made = kept_.with_workspace(source, [&](state::SavedWorkspace& workspace) {
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
  kept_.dir()->note_changed();
  if (!made) return made.error();
  request.from_snapshot = SessionRequest::Snapshot{source, snapshot};
  return create(request, progress, "fork_session");
}

core::Result<ClosedSession> SessionService::close(const std::string& id_or_name, bool keep) const {
  ClosedSession closed{id_or_name, "closed"};
  if (auto open = sessions_.find(id_or_name); open) {
    closed.id = (*open)->id();
    sessions_.close(closed.id);
    auto run = (*open)->lock_run();
    if (run.kept() && !keep) {
      if (auto removed = kept_.dir()->remove(*run.kept()); !removed) {
        return core::Error{
            removed.error().code,
            "session " + closed.id +
                " closed, but its files on disk could not be removed: " + removed.error().message};
      }
      run.set_kept(nullptr);
    }
    if (keep && run.kept()) closed.said = "closed; its files stay on disk";
    return closed;
  }
  auto kept = kept_.closed(id_or_name);
  if (!kept) {
    if (kept.error().code != ENOENT) return kept.error();
    return core::Error{
        ENOENT, "no session '" + id_or_name + "' (already closed, expired, or never existed)"};
  }
  closed.id = (*kept)->info().id;
  if (keep) {
    return core::invalid_input("session " + closed.id +
                               " is not open; its files are on disk already");
  }
  if (auto removed = kept_.dir()->remove(**kept); !removed) return removed.error();
  closed.said = "removed from disk";
  return closed;
}

}  // namespace paddock::app
