#include "app/kept_sessions.h"

#include <algorithm>

#include "app/code_runner.h"
#include "app/live_session.h"
#include "app/log.h"
#include "core/units.h"

namespace paddock::app {
namespace {

// A session's work directory as the place a walked tree is written again.
// Kept sessions restore links only where the session can make them (the native backend's).
const core::Error kNoLinks{ENOTSUP, "this backend cannot make links in a session"};

class SessionTreeSink final : public core::TreeSink {
 public:
  explicit SessionTreeSink(runtime::Session& session) : session_(session) {}
  core::Status make_directory(const std::string& path) override {
    return session_.make_directory(path);
  }
  core::Status write_file(const std::string& path, int source_fd, std::uint64_t size,
                          bool executable) override {
    return session_.copy_in(path, source_fd, size, executable);
  }
  core::Status make_symlink(const std::string& path, const std::string& target) override {
    runtime::WorkTreeAccess* tree = session_.work_tree();
    if (tree == nullptr) return kNoLinks;
    return tree->make_symlink(path, target);
  }
  core::Status make_hard_link(const std::string& path, const std::string& existing) override {
    runtime::WorkTreeAccess* tree = session_.work_tree();
    if (tree == nullptr) return kNoLinks;
    return tree->make_hard_link(path, existing);
  }

 private:
  runtime::Session& session_;
};

core::TreeWalker walker_of(runtime::Session& session) {
  return [&session](const core::TreeVisitor& visit) -> core::Status {
    runtime::WorkTreeAccess* tree = session.work_tree();
    if (tree == nullptr) return core::Error{ENOTSUP, "this backend keeps no session on disk"};
    return tree->walk_work_directory(visit);
  };
}

}  // namespace

// One line naming what a save left out, at most a few entries by name.
std::string skipped_line(const std::vector<std::string>& skipped) {
  constexpr std::size_t kNamed = 5;
  std::string line = "the session's files were kept on disk except ";
  for (std::size_t i = 0; i < skipped.size() && i < kNamed; ++i) {
    if (i > 0) line += ", ";
    line += skipped[i];
  }
  if (skipped.size() > kNamed) line += " and " + std::to_string(skipped.size() - kNamed) + " more";
  return line;
}

std::string keep_session_files(SessionEntry& entry) {
  auto run = entry.lock_run();
  if (!run.kept()) return "";
  state::SaveLimits limits;
  // The tmpfs's own measure (allocated blocks, each inode once), so a session that fitted its
  // tmpfs is always saved, and reopened into one of the same size.
  limits.max_bytes = entry.limits().work_bytes;
  limits.max_entries =
      entry.limits().work_files == 0 ? limits.max_entries : entry.limits().work_files;
  if (run.state_disk_room()) limits.new_disk_room = run.state_disk_room();
  auto saved = run.kept()->save(walker_of(entry.session()), limits);
  if (!saved) {
    std::string line = "the session's files could not be kept on disk: " + saved.error().message;
    log(LogLevel::kWarning, "session " + entry.id() + ": " + line);
    return line;
  }
  if (run.state_disk_wrote()) run.state_disk_wrote()(saved->disk_bytes);
  (void)run.kept()->touch(run.kernel() != nullptr, entry.host_grants()->saved());
  if (!saved->skipped.empty()) {
    std::string line = skipped_line(saved->skipped);
    log(LogLevel::kWarning, "session " + entry.id() + ": " + line);
    return line;
  }
  return "";
}

core::Status restore_session_files(SessionEntry::RunAccess& run) {
  const SessionEntry& entry = run.entry();
  SessionTreeSink sink(entry.session());
  if (auto restored = run.kept()->restore(sink); !restored) {
    return restored.error().context("reopening session " + entry.id());
  }
  return run.kept()->adopt(walker_of(entry.session()));
}

std::uint64_t KeptSessions::committed(const SessionEntry* except) const {
  std::uint64_t used = dir_->disk_bytes(options_.state_disk);
  for (const auto& open : sessions_.list()) {
    std::optional<std::uint64_t> held = open->kept_used_bytes();
    if (!held || open.get() == except) continue;
    if (open->limits().work_bytes > *held) used += open->limits().work_bytes - *held;
  }
  return used;
}

core::Result<std::uint64_t> KeptSessions::room_for(std::uint64_t wanted,
                                                   std::uint64_t own_bytes) const {
  std::uint64_t used = committed(nullptr);
  std::uint64_t limit = options_.state_disk;
  std::uint64_t room = limit > used ? limit - used : 0;
  std::uint64_t size = std::min(wanted, room + own_bytes);
  // A kept session is reopened whatever the room: its files are on disk already, and it holds
  // them in a tmpfs of what they took in the one they were saved from (the same measure), with a
  // little room to work.
  if (own_bytes > 0) return std::max(size, own_bytes + (1u << 20));
  if (size < (1u << 20)) {
    return core::Error{
        ENOSPC, "the state directory " + dir_->path() + " is full (" + core::format_size(used) +
                    " of --state-disk " + core::format_size(limit) +
                    "): close sessions you no longer need with close_session, or raise "
                    "--state-disk"};
  }
  return size;
}

void KeptSessions::attach_state_disk_room(SessionEntry::RunAccess& run) const {
  const SessionEntry* entry = &run.entry();
  run.set_state_disk(
      [this, entry]() -> std::uint64_t {
        std::uint64_t used = committed(entry);
        std::uint64_t limit = options_.state_disk;
        return limit > used ? limit - used : 0;
      },
      [dir = dir_](std::uint64_t bytes) { dir->note_written(bytes); });
}

std::uint64_t KeptSessions::state_disk_room() const {
  std::uint64_t used = committed(nullptr);
  std::uint64_t limit = options_.state_disk;
  return limit > used ? limit - used : 0;
}

core::Status KeptSessions::check_keeps_sessions() const {
  if (dir_ != nullptr) return {};
  return core::invalid_input(
      "this server keeps no sessions on disk (--state-dir none, or a backend that cannot), so "
      "sessions have no names, snapshots or forks");
}

core::Status KeptSessions::check_state_room() const {
  auto room = room_for(1u << 20, 0);
  return room ? core::Status{} : core::Status{room.error()};
}

core::Result<std::unique_ptr<state::SavedWorkspace>> KeptSessions::make_workspace(
    const std::string& id, const std::string& name, const std::string& language,
    const std::function<core::Status(int files_fd)>& fill) const {
  state::StateDir* dir = dir_;
  if (dir == nullptr) return std::unique_ptr<state::SavedWorkspace>();
  if (!name.empty()) {
    if (auto claimed = dir->claim_name(name, id); !claimed) return claimed.error();
  }
  state::WorkspaceInfo info;
  info.id = id;
  info.name = name;
  info.language = language;
  auto made = state::SavedWorkspace::create(dir->sessions_fd(), info, fill);
  dir->note_changed();  // a fill from a snapshot or an archive writes what no save measured
  if (!made) dir->release_name(name, id);
  return made;
}

core::Result<std::unique_ptr<state::SavedWorkspace>> KeptSessions::closed(
    const std::string& id_or_name) const {
  state::StateDir* dir = dir_;
  if (dir == nullptr) return core::Error{ENOENT, "no session '" + id_or_name + "'"};
  auto id = dir->resolve(id_or_name);
  if (!id) return id.error();
  auto workspace = state::SavedWorkspace::open(dir->sessions_fd(), *id);
  if (!workspace && workspace.error().code == EBUSY) {
    return core::Error{EBUSY, "session " + *id +
                                  " is open in another paddock server that shares this state "
                                  "directory; use it there, or close that server first"};
  }
  return workspace;
}

core::Result<std::shared_ptr<SessionEntry>> KeptSessions::reopen(
    const std::string& id_or_name) const {
  auto workspace = closed(id_or_name);
  if (!workspace) return workspace.error();
  const state::WorkspaceInfo info = (*workspace)->info();
  const std::string& id = info.id;
  auto policy = policies_.find(info.language);
  if (!policy) {
    return core::Error{ENOENT, "session " + id + " was made for " + info.language +
                                   ", which this server does not run"};
  }
  auto spec = runner_.session_spec(**policy, {});
  if (!spec) return spec.error();
  auto room = room_for(spec->shape.limits.work_bytes, info.used_bytes);
  if (!room) return room.error();
  spec->shape.limits.work_bytes = *room;
  if (auto reserved = sessions_.reserve(); !reserved) return reserved.error();
  warm_.fit();
  kernels_.fit();
  auto opened = runner_.backend().open_session(spec->shape, spec->plan);
  if (!opened) {
    sessions_.unreserve();
    return opened.error().context("reopening session " + id);
  }
  SessionSettings settings;
  settings.id = id;
  settings.ttl_seconds = options_.session_idle_seconds;
  settings.limits = runtime::limits_of(spec->shape.limits, spec->plan);
  settings.name = info.name;
  auto entry = sessions_.add(std::move(*opened), **policy, std::move(settings));
  // What the person allowed holds again, and the audit log says so: it is a grant in force.
  for (const auto& grant : entry->host_grants()->restore(info.allowed_by_user)) {
    AuditRecord record;
    record.session = entry->id();
    record.answer = UserAnswerAudit{"network", grant.host + ":" + std::to_string(grant.port),
                                    grant.installer ? "installer" : "program", "restored"};
    audit_.record(record);
  }
  auto run = entry->lock_run();
  run.set_kept(std::move(*workspace));
  attach_state_disk_room(run);
  if (auto restored = restore_session_files(run); !restored) {
    run.set_kept(nullptr);  // what is on disk stays as it was
    sessions_.close(entry->id());
    return restored.error();
  }
  start_interpreter(run, info.live, secrets_);
  if (info.live) run.set_state_lost("the server restarted");
  log(LogLevel::kInfo, "session " + id + " reopened from " + dir_->path());
  return entry;
}

core::Status KeptSessions::with_workspace(
    const std::string& id_or_name,
    const std::function<core::Status(state::SavedWorkspace&)>& use) const {
  if (auto open = sessions_.find(id_or_name); open) {
    auto run = (*open)->lock_run();
    if (!run.kept()) {
      return core::invalid_input(
          "session " + (*open)->id() +
          " is not kept on disk (this server keeps no sessions), so it has no "
          "snapshots");
    }
    return use(*run.kept());
  }
  auto kept = closed(id_or_name);
  if (!kept) {
    if (kept.error().code == ENOENT) {
      return core::Error{ENOENT, "no session '" + id_or_name + "' (open or kept on disk)"};
    }
    return kept.error();
  }
  return use(**kept);
}

std::vector<state::KeptSession> KeptSessions::not_open() const {
  std::vector<state::KeptSession> closed;
  if (dir_ == nullptr) return closed;
  for (auto& kept : dir_->list()) {
    if (!sessions_.find(kept.info.id)) closed.push_back(std::move(kept));
  }
  return closed;
}

void KeptSessions::remove_unused() const {
  if (dir_ == nullptr) return;
  for (const auto& removed : dir_->remove_unused(options_.session_retention_seconds)) {
    AuditRecord record;
    record.tool = "session_retention";
    record.session = removed.id;
    record.language = removed.language;
    record.backend = runner_.backend().name();
    record.outcome = "removed";
    record.error = "unused for more than " +
                   core::format_duration(options_.session_retention_seconds) +
                   " (--session-retention)";
    audit_.record(record);
    log(LogLevel::kInfo, "session " + removed.id + " removed from disk: unused for longer than " +
                             core::format_duration(options_.session_retention_seconds));
  }
}

}  // namespace paddock::app
