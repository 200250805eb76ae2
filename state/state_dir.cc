#include "state/state_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/file_tree.h"
#include "state/state_names.h"

namespace paddock::state {
namespace {

// One line refusing what another user owns under the state directory: while any part of it was
// open to others (a folder once 0777), they could have made or changed it, and still can through
// a descriptor they kept, whatever mode it has now.
core::Error foreign(const std::string& path, const std::string& what, uid_t owner) {
  return core::Error{EPERM, "the state directory " + path + " holds " + what +
                                ", which belongs to uid " + std::to_string(owner) +
                                ", not to this user: remove it (as that user or root), or give "
                                "--state-dir a directory of your own"};
}

// Opens the folder `name` of the state directory (made when missing) as one of this user's, private
// before anything in it is used: from the fchmod on, nobody else can add to it or rename in it.
// Each entry it holds must be this user's too (a session, a name) and a session's folder is made
// private like it.
core::Result<core::UniqueFd> open_own_folder(int parent, const std::string& name,
                                             const std::string& path) {
  if (mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return core::system_error("making the state directory " + path);
  }
  struct stat info {};
  core::UniqueFd fd(openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    int error = errno;
    // A symlink or a file in its place: someone else's is said so, one of ours is what it is.
    if (fstatat(parent, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        info.st_uid != geteuid()) {
      return foreign(path, name, info.st_uid);
    }
    return core::system_error("opening the state directory " + path + "'s " + name, error);
  }
  if (fstat(fd.get(), &info) != 0)
    return core::system_error("examining the state directory " + path);
  if (info.st_uid != geteuid()) return foreign(path, name + "/", info.st_uid);
  if ((info.st_mode & 077) != 0 && fchmod(fd.get(), 0700) != 0) {
    return core::system_error("making the state directory " + path + "'s " + name + " private");
  }
  auto entries = core::directory_names(fd.get());
  if (!entries) return entries.error().context("the state directory " + path + "'s " + name);
  for (const auto& entry : *entries) {
    struct stat held {};
    if (fstatat(fd.get(), entry.c_str(), &held, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // removed meanwhile by another server of this user's
      return core::system_error("examining the state directory " + path + "'s " + name + "/" +
                                entry);
    }
    if (held.st_uid != geteuid()) return foreign(path, name + "/" + entry, held.st_uid);
    if (S_ISDIR(held.st_mode) && (held.st_mode & 077) != 0 &&
        fchmodat(fd.get(), entry.c_str(), 0700, AT_SYMLINK_NOFOLLOW) != 0) {
      return core::system_error("making the state directory " + path + "'s " + name + "/" + entry +
                                " private");
    }
  }
  return fd;
}

// Whether another server holds the session's lock (a shared probe does not disturb it).
bool locked_elsewhere(int session_dir) {
  core::UniqueFd lock(openat(session_dir, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!lock.valid()) return false;
  if (flock(lock.get(), LOCK_SH | LOCK_NB) == 0) return false;
  return errno == EWOULDBLOCK;
}

}  // namespace

core::Result<std::unique_ptr<StateDir>> StateDir::open(const std::string& path) {
  if (path.empty() || path[0] != '/') {
    return core::invalid_input("--state-dir '" + path + "' is not an absolute path");
  }
  // The parents as `mkdir -p` makes them, private to the user like the directory itself.
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (mkdir(path.substr(0, slash).c_str(), 0700) != 0 && errno != EEXIST) {
      return core::system_error("making the state directory " + path);
    }
  }
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return core::system_error("making the state directory " + path);
  }
  core::UniqueFd root(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root.valid()) return core::system_error("opening the state directory " + path);
  struct stat info {};
  if (fstat(root.get(), &info) != 0)
    return core::system_error("examining the state directory " + path);
  if (info.st_uid != geteuid()) {
    return core::Error{EPERM, "the state directory " + path + " belongs to uid " +
                                  std::to_string(info.st_uid) +
                                  ", not to this user: give --state-dir a directory of your own"};
  }
  if ((info.st_mode & 077) != 0 && fchmod(root.get(), 0700) != 0) {
    return core::system_error("making the state directory " + path + " private");
  }
  // Private first, then what it holds: from here on no other user can add to it, so what the
  // checks below accept stays this user's.
  auto sessions = open_own_folder(root.get(), "sessions", path);
  if (!sessions) return sessions.error();
  auto names = open_own_folder(root.get(), "names", path);
  if (!names) return names.error();
  return std::unique_ptr<StateDir>(
      new StateDir(path, std::move(root), std::move(*sessions), std::move(*names)));
}

core::Result<std::string> StateDir::resolve(const std::string& id_or_name) const {
  if (!check_state_name(id_or_name, "session")) {
    return core::Error{ENOENT, "no session '" + id_or_name + "'"};
  }
  if (faccessat(sessions_.get(), id_or_name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return id_or_name;
  }
  char target[128] = {};
  ssize_t length = readlinkat(names_.get(), id_or_name.c_str(), target, sizeof target - 1);
  if (length > 0 && check_state_name(target, "session id") &&
      faccessat(sessions_.get(), target, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return std::string(target);
  }
  return core::Error{ENOENT, "no session '" + id_or_name + "'"};
}

core::Status StateDir::claim_name(const std::string& name, const std::string& id) {
  if (auto valid = check_state_name(name, "name"); !valid) return valid;
  if (symlinkat(id.c_str(), names_.get(), name.c_str()) == 0) return {};
  if (errno != EEXIST) return core::system_error("naming the session " + name);
  // A name left by a session that is gone is free again.
  char target[128] = {};
  ssize_t length = readlinkat(names_.get(), name.c_str(), target, sizeof target - 1);
  if (length > 0 && faccessat(sessions_.get(), target, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
      faccessat(sessions_.get(), (std::string(target) + ".new").c_str(), F_OK,
                AT_SYMLINK_NOFOLLOW) != 0) {
    std::string stale = name + "." + id + ".stale";
    if (symlinkat(id.c_str(), names_.get(), stale.c_str()) == 0 &&
        renameat(names_.get(), stale.c_str(), names_.get(), name.c_str()) == 0) {
      return {};
    }
    unlinkat(names_.get(), stale.c_str(), 0);
  }
  return core::Error{EEXIST, "a session named '" + name +
                                 "' exists already: choose another name, or use that session"};
}

void StateDir::release_name(const std::string& name, const std::string& id) {
  if (name.empty()) return;
  char target[128] = {};
  ssize_t length = readlinkat(names_.get(), name.c_str(), target, sizeof target - 1);
  if (length > 0 && id == target) unlinkat(names_.get(), name.c_str(), 0);
}

std::vector<KeptSession> StateDir::list() const {
  std::vector<KeptSession> kept;
  auto names = core::directory_names(sessions_.get());
  if (!names) return kept;
  for (const auto& id : *names) {
    if (!check_state_name(id, "id") || id.ends_with(".new")) continue;
    core::UniqueFd dir(
        openat(sessions_.get(), id.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) continue;
    core::UniqueFd meta(openat(dir.get(), "meta.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!meta.valid()) continue;
    std::string text(1 << 16, '\0');
    ssize_t got = read(meta.get(), text.data(), text.size());
    if (got <= 0) continue;
    text.resize(static_cast<std::size_t>(got));
    auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_object()) continue;
    KeptSession session;
    session.info.id = id;
    session.info.name = parsed.value("name", "");
    session.info.language = parsed.value("language", "");
    session.info.created_at = parsed.value("created_at", "");
    session.info.last_used = parsed.value("last_used", std::int64_t{0});
    session.info.live = parsed.value("live", false);
    session.info.bytes = parsed.value("bytes", std::uint64_t{0});
    session.info.files = parsed.value("files", std::uint64_t{0});
    session.in_use = locked_elsewhere(dir.get());
    kept.push_back(std::move(session));
  }
  std::sort(kept.begin(), kept.end(), [](const KeptSession& a, const KeptSession& b) {
    return a.info.last_used > b.info.last_used;
  });
  return kept;
}

StateDir::~StateDir() {
  if (walk_beside_.joinable()) walk_beside_.join();
}

std::uint64_t StateDir::disk_bytes(std::uint64_t limit) const {
  std::unique_lock lock(meter_mutex_);
  auto now = std::chrono::steady_clock::now();
  std::uint64_t estimate = walked_bytes_ + written_since_walk_;
  if (!walked_ || (limit != 0 && estimate > limit - limit / 10)) {
    walk_here(now);
    return walked_bytes_;
  }
  if (now - walked_at_ > walk_period_ && !walking_beside_) walk_beside_callers(lock);
  return estimate;
}

void StateDir::walk_beside_callers(std::unique_lock<std::mutex>& lock) const {
  if (walk_beside_.joinable()) {
    // The last one is done (walking_beside_ is false), so joining it takes no time; taken out
    // first, so that no other caller joins it too.
    std::thread done = std::move(walk_beside_);
    lock.unlock();
    done.join();
    lock.lock();
    if (walking_beside_) return;  // another caller started one meanwhile
  }
  walking_beside_ = true;
  std::uint64_t number = walk_number_;
  std::uint64_t written_before = written_since_walk_;
  auto began = std::chrono::steady_clock::now();
  try {
    walk_beside_ = std::thread([this, number, written_before, began] {
      std::uint64_t bytes = walk_disk_bytes();
      std::lock_guard done(meter_mutex_);
      walking_beside_ = false;
      if (walk_number_ != number) return;  // a walk the callers waited for came since
      // What was noted written while it walked may be in its figure too: counted twice, it errs
      // high, never low.
      walked_bytes_ = bytes;
      written_since_walk_ -= written_before;
      walked_at_ = began;
      ++walk_number_;
    });
  } catch (const std::system_error&) {
    walking_beside_ = false;
    walk_here(began);  // no thread to be had: the caller walks, as before there was one
  }
}

void StateDir::walk_here(std::chrono::steady_clock::time_point now) const {
  walked_bytes_ = walk_disk_bytes();
  written_since_walk_ = 0;
  walked_at_ = now;
  walked_ = true;
  ++walk_number_;  // a walk beside the callers that began before this one is older
}

void StateDir::set_walk_period(std::chrono::milliseconds period) {
  std::lock_guard lock(meter_mutex_);
  walk_period_ = period;
}

void StateDir::note_changed() {
  std::lock_guard lock(meter_mutex_);
  walked_ = false;
}

void StateDir::note_written(std::uint64_t bytes) {
  std::lock_guard lock(meter_mutex_);
  written_since_walk_ += bytes;
}

std::uint64_t StateDir::walk_disk_bytes() const {
  std::set<std::uint64_t> seen;
  std::uint64_t bytes = 0;
  (void)core::walk_tree(sessions_.get(),
                        [&](const core::TreeEntry& entry, const core::FileOpener&) -> core::Status {
                          if (seen.insert(entry.ino).second) bytes += entry.disk_bytes;
                          return {};
                        });
  return bytes;
}

std::vector<WorkspaceInfo> StateDir::remove_unused(double retention_seconds) {
  std::vector<WorkspaceInfo> removed;
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  for (const auto& session : list()) {
    if (session.in_use || static_cast<double>(now - session.info.last_used) < retention_seconds) {
      continue;
    }
    auto workspace = SavedWorkspace::open(sessions_.get(), session.info.id);
    if (!workspace) continue;  // opened meanwhile by another server
    if (remove(**workspace)) removed.push_back(session.info);
  }
  // Creations that did not finish: no server holds them.
  if (auto names = core::directory_names(sessions_.get())) {
    for (const auto& name : *names) {
      if (!name.ends_with(".new")) continue;
      core::UniqueFd dir(
          openat(sessions_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (dir.valid() && !locked_elsewhere(dir.get()))
        (void)core::remove_tree(sessions_.get(), name);
    }
  }
  return removed;
}

core::Status StateDir::remove(SavedWorkspace& workspace) {
  WorkspaceInfo info = workspace.info();
  auto removed = workspace.remove();
  release_name(info.name, info.id);
  return removed;
}

}  // namespace paddock::state
