#include "state/saved_workspace.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/beneath.h"
#include "core/files.h"
#include "core/units.h"
#include "core/utc_time.h"
#include "core/write_all.h"
#include "state/file_digest.h"
#include "state/state_names.h"

namespace paddock::state {
namespace {

using json = nlohmann::json;

constexpr const char* kCurrent = "current";
constexpr const char* kSnapshots = "snapshots";
// The state directory's block: what a folder takes there (ext4's, and most file systems').
constexpr std::uint64_t kDiskBlock = 4096;

std::string generation_name(std::uint64_t generation) {
  return "gen-" + std::to_string(generation);
}

// The directory that holds `path` inside the tree `root_fd`, by a lookup that follows no
// symlink: the copies on disk hold the sandbox's symlinks, which must never be followed here.
Result<UniqueFd> parent_of(int root_fd, const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) {
    int fd = dup(root_fd);
    if (fd < 0) return system_error("duplicating a directory");
    return UniqueFd(fd);
  }
  std::string parent = path.substr(0, slash);
  int fd = open_beneath(root_fd, parent.c_str(), O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
  if (fd < 0) return system_error("opening the folder of " + path, -fd);
  return UniqueFd(fd);
}

Result<UniqueFd> open_directory(int parent, const std::string& name) {
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return system_error("opening " + name);
  return UniqueFd(fd);
}

Status make_directory(int parent, const std::string& name) {
  if (mkdirat(parent, name.c_str(), 0700) != 0) return system_error("making " + name);
  return {};
}

// Writes `text` as `name` of `dir` atomically (a temporary file renamed over it).
Status write_atomically(int dir, const std::string& name, const std::string& text) {
  std::string temporary = name + ".tmp";
  UniqueFd file(
      openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid()) return system_error("writing " + name);
  if (int error = write_all(file.get(), text); error != 0) {
    return system_error("writing " + name, error);
  }
  if (renameat(dir, temporary.c_str(), dir, name.c_str()) != 0) {
    return system_error("writing " + name);
  }
  return {};
}

Result<std::string> read_small(int dir, const std::string& name) {
  UniqueFd file(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!file.valid()) return system_error("reading " + name);
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(file.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return system_error("reading " + name);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > (256u << 20)) return Error{EFBIG, name + " is too large"};
  }
  return text;
}

// What a save recorded of each file, by path: the inode its source had, and what the copy holds
// (file_digest). A file is unchanged only when both are the same: metadata alone misses writes
// through a shared mapping.
struct Identity {
  std::uint64_t ino = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t size = 0;
  std::string digest;  // empty: unknown (an older manifest), so the file is copied
};

json manifest_json(const std::map<std::string, Identity>& files) {
  json entries = json::array();
  for (const auto& [path, identity] : files) {
    entries.push_back({path, identity.ino, identity.ctime_ns, identity.size, identity.digest});
  }
  return {{"version", 2}, {"files", std::move(entries)}};
}

// The manifest of a generation; empty when it has none or it cannot be read (then everything is
// copied: a manifest is only a way to copy less).
std::map<std::string, Identity> read_manifest(int generation_dir) {
  std::map<std::string, Identity> files;
  auto text = read_small(generation_dir, "manifest.json");
  if (!text) return files;
  try {
    // Held here: a range-for over a member of a temporary would read freed memory.
    json manifest = json::parse(*text);
    for (const auto& entry : manifest.at("files")) {
      files[entry.at(0).get<std::string>()] = {
          entry.at(1).get<std::uint64_t>(), entry.at(2).get<std::int64_t>(),
          entry.at(3).get<std::uint64_t>(), entry.size() > 4 ? entry.at(4).get<std::string>() : ""};
    }
  } catch (const json::exception&) {
    files.clear();
  }
  return files;
}

// What an entry takes on the state directory's disk beyond its data: a folder is one block, and
// so is a symlink too long for the inode (ext4 keeps up to 59 bytes there). tmpfs keeps both in
// memory for nearly nothing, so a save must count them itself.
std::uint64_t skeleton_bytes(const TreeEntry& entry) {
  if (entry.type == TreeEntryType::kDirectory) return kDiskBlock;
  if (entry.type == TreeEntryType::kSymlink && entry.link_target.size() >= 60) return kDiskBlock;
  return 0;
}

std::uint64_t whole_blocks(std::uint64_t bytes) {
  return (bytes + kDiskBlock - 1) / kDiskBlock * kDiskBlock;
}

struct Copied {
  std::uint64_t written = 0;  // data bytes (holes are not written)
  std::string digest;         // of the copy, as it is on disk
};

// Creates the file `path` of `root` (new: never over another), copies `source` into it and
// digests what was written: the copy's own digest, so a write racing the copy is never taken
// for what the copy holds.
Result<Copied> write_copy(int root, const std::string& path, int source, std::uint64_t size,
                          bool executable) {
  auto parent = parent_of(root, path);
  if (!parent) return parent.error();
  std::string leaf = tree_leaf(path);
  UniqueFd target(openat(parent->get(), leaf.c_str(),
                         O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                         executable ? 0700 : 0600));
  if (!target.valid()) return system_error("writing " + path);
  auto written = copy_file_data(source, target.get(), size);
  if (!written) return written.error();
  auto digest = file_digest(target.get(), size);
  if (!digest) return digest.error();
  return Copied{*written, std::move(*digest)};
}

// Links the file `from` of `from_root` as `to` of `to_root`.
Status link_file(int from_root, const std::string& from, int to_root, const std::string& to) {
  auto from_parent = parent_of(from_root, from);
  if (!from_parent) return from_parent.error();
  auto to_parent = parent_of(to_root, to);
  if (!to_parent) return to_parent.error();
  if (linkat(from_parent->get(), tree_leaf(from).c_str(), to_parent->get(), tree_leaf(to).c_str(),
             0) != 0) {
    return system_error("linking " + to);
  }
  return {};
}

Status make_entry(int root, const TreeEntry& entry) {
  auto parent = parent_of(root, entry.path);
  if (!parent) return parent.error();
  std::string leaf = tree_leaf(entry.path);
  if (entry.type == TreeEntryType::kDirectory) return make_directory(parent->get(), leaf);
  if (symlinkat(entry.link_target.c_str(), parent->get(), leaf.c_str()) != 0) {
    return system_error("making the link " + entry.path);
  }
  return {};
}

}  // namespace

Result<std::pair<std::uint64_t, std::uint64_t>> link_tree(int from, int to,
                                                          std::uint64_t max_new_disk) {
  // Files are shared, folders are not: what the copy's folders take is measured first, and the
  // copy refused before anything is written when it is more than the room left.
  std::uint64_t skeleton = 0;
  auto measured = walk_tree(from, [&](const TreeEntry& entry, const FileOpener&) {
    skeleton += skeleton_bytes(entry);
    return Status{};
  });
  if (!measured) return measured.error();
  if (skeleton > max_new_disk) {
    return Error{ENOSPC, "its folders take " + format_size(skeleton) + ", and " +
                             format_size(max_new_disk) + " is left under --state-disk"};
  }
  std::uint64_t files = 0, bytes = 0;
  auto walked = walk_tree(from, [&](const TreeEntry& entry, const FileOpener&) -> Status {
    ++files;
    if (entry.type != TreeEntryType::kFile) return make_entry(to, entry);
    bytes += entry.size;
    return link_file(from, entry.path, to, entry.path);
  });
  if (!walked) return walked.error();
  return std::pair{files, bytes};
}

namespace {

struct TreeItem {
  TreeEntryType type;
  std::uint64_t ino;
  std::uint64_t size;
  std::uint64_t disk_bytes;
  std::string link_target;
};

Result<std::map<std::string, TreeItem>> tree_items(int root) {
  std::map<std::string, TreeItem> items;
  auto walked = walk_tree(root, [&](const TreeEntry& entry, const FileOpener&) -> Status {
    items[entry.path] = {entry.type, entry.ino, entry.size, entry.disk_bytes, entry.link_target};
    return {};
  });
  if (!walked) return walked.error();
  return items;
}

// Whether the files `path` of two trees hold the same bytes (they are the same size).
bool same_content(int left_root, int right_root, const std::string& path) {
  auto open_in = [&](int root) -> UniqueFd {
    auto parent = parent_of(root, path);
    if (!parent) return UniqueFd();
    auto file = open_tree_file(parent->get(), tree_leaf(path));
    return file ? std::move(*file) : UniqueFd();
  };
  UniqueFd left = open_in(left_root), right = open_in(right_root);
  if (!left.valid() || !right.valid()) return false;
  char a[65536], b[65536];
  for (;;) {
    ssize_t got = read(left.get(), a, sizeof a);
    if (got < 0) return false;
    ssize_t other =
        got == 0 ? read(right.get(), b, 1) : read(right.get(), b, static_cast<std::size_t>(got));
    if (got == 0) return other == 0;
    // A short read of a regular file on a local disk is the end of it.
    if (other != got || std::memcmp(a, b, static_cast<std::size_t>(got)) != 0) return false;
  }
}

json info_json(const WorkspaceInfo& info) {
  return {{"id", info.id},
          {"name", info.name},
          {"language", info.language},
          {"created_at", info.created_at},
          {"last_used", info.last_used},
          {"live", info.live},
          {"bytes", info.bytes},
          {"used_bytes", info.used_bytes},
          {"files", info.files}};
}

Result<WorkspaceInfo> read_info(int dir) {
  auto text = read_small(dir, "meta.json");
  if (!text) return text.error();
  try {
    json meta = json::parse(*text);
    WorkspaceInfo info;
    info.id = meta.at("id").get<std::string>();
    info.name = meta.value("name", "");
    info.language = meta.at("language").get<std::string>();
    info.created_at = meta.value("created_at", "");
    info.last_used = meta.value("last_used", std::int64_t{0});
    info.live = meta.value("live", false);
    info.bytes = meta.value("bytes", std::uint64_t{0});
    info.used_bytes = meta.value("used_bytes", info.bytes);
    info.files = meta.value("files", std::uint64_t{0});
    return info;
  } catch (const json::exception& error) {
    return Error{EINVAL, std::string("meta.json is not paddock's: ") + error.what()};
  }
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<UniqueFd> lock_file(int dir) {
  UniqueFd lock(openat(dir, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.valid()) return system_error("opening the lock");
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return Error{EBUSY,
                   "it is open in another paddock server that uses the same state directory"};
    }
    return system_error("locking");
  }
  return lock;
}

// Makes a generation current: its files are on disk first, then the link to it.
Status make_current(int dir, std::uint64_t generation) {
  if (syncfs(dir) != 0) return system_error("syncing the workspace");
  std::string temporary = std::string(kCurrent) + ".tmp";
  unlinkat(dir, temporary.c_str(), 0);
  if (symlinkat(generation_name(generation).c_str(), dir, temporary.c_str()) != 0 ||
      renameat(dir, temporary.c_str(), dir, kCurrent) != 0) {
    return system_error("switching to the new generation");
  }
  if (fsync(dir) != 0) return system_error("syncing the workspace");
  return {};
}

}  // namespace

std::uint64_t generation_of(const std::string& link_target) {
  if (link_target.rfind("gen-", 0) != 0) return 0;
  std::uint64_t value = 0;
  for (char c : link_target.substr(4)) {
    if (c < '0' || c > '9' || value > (1ull << 50)) return 0;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

Result<std::unique_ptr<SavedWorkspace>> SavedWorkspace::create(
    int sessions_fd, WorkspaceInfo info, const std::function<Status(int files_fd)>& fill) {
  if (auto valid = check_state_name(info.id, "session id"); !valid) return valid.error();
  int copy = dup(sessions_fd);
  if (copy < 0) return system_error("duplicating the state directory");
  UniqueFd sessions(copy);
  std::string building = info.id + ".new";
  if (faccessat(sessions_fd, info.id.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return Error{EEXIST, "a session " + info.id + " is already on disk"};
  }
  (void)remove_tree(sessions_fd, building);
  if (auto made = make_directory(sessions_fd, building); !made) return made.error();
  auto failed = [&](const Error& error) -> Error {
    (void)remove_tree(sessions_fd, building);
    return error;
  };
  auto dir = open_directory(sessions_fd, building);
  if (!dir) return failed(dir.error());
  auto lock = lock_file(dir->get());
  if (!lock) return failed(lock.error());
  info.created_at = utc_now();
  info.last_used = now_seconds();
  std::string first = generation_name(1);
  if (auto made = make_directory(dir->get(), first); !made) return failed(made.error());
  auto generation = open_directory(dir->get(), first);
  if (!generation) return failed(generation.error());
  if (auto made = make_directory(generation->get(), "files"); !made) return failed(made.error());
  auto files = open_directory(generation->get(), "files");
  if (!files) return failed(files.error());
  if (fill) {
    if (auto filled = fill(files->get()); !filled) return failed(filled.error());
  }
  auto workspace = std::unique_ptr<SavedWorkspace>(new SavedWorkspace(
      std::move(sessions), std::move(*dir), std::move(*lock), std::move(info), 1));
  auto counted = tree_items(files->get());
  if (!counted) return failed(counted.error());
  std::set<std::uint64_t> inodes;
  for (const auto& [path, item] : *counted) {
    ++workspace->info_.files;
    if (item.type == TreeEntryType::kFile) workspace->info_.bytes += item.size;
    if (item.type != TreeEntryType::kDirectory && inodes.insert(item.ino).second) {
      workspace->info_.used_bytes += item.disk_bytes;
    }
  }
  if (auto written = workspace->write_info(); !written) return failed(written.error());
  if (auto current = make_current(workspace->dir_.get(), 1); !current) {
    return failed(current.error());
  }
  if (renameat(sessions_fd, building.c_str(), sessions_fd, workspace->info_.id.c_str()) != 0) {
    return failed(system_error("keeping the session on disk"));
  }
  if (fsync(sessions_fd) != 0) return system_error("syncing the state directory");
  return workspace;
}

Result<std::unique_ptr<SavedWorkspace>> SavedWorkspace::open(int sessions_fd,
                                                             const std::string& id) {
  if (auto valid = check_state_name(id, "session id"); !valid) return valid.error();
  int copy = dup(sessions_fd);
  if (copy < 0) return system_error("duplicating the state directory");
  UniqueFd sessions(copy);
  auto dir = open_directory(sessions_fd, id);
  if (!dir) {
    if (dir.error().code == ENOENT) return Error{ENOENT, "no session " + id + " on disk"};
    return dir.error().context("session " + id);
  }
  auto lock = lock_file(dir->get());
  if (!lock) return lock.error().context("session " + id);
  auto info = read_info(dir->get());
  if (!info)
    return Error{EIO, "session " + id + " on disk cannot be read (" + info.error().message +
                          "): it was changed outside paddock"};
  char target[64] = {};
  ssize_t length = readlinkat(dir->get(), kCurrent, target, sizeof target - 1);
  std::uint64_t generation = length > 0 ? generation_of(target) : 0;
  if (generation == 0) {
    return Error{EIO, "session " + id +
                          " on disk has no complete generation: it was changed outside paddock"};
  }
  return std::unique_ptr<SavedWorkspace>(new SavedWorkspace(
      std::move(sessions), std::move(*dir), std::move(*lock), std::move(*info), generation));
}

SavedWorkspace::~SavedWorkspace() = default;

Error SavedWorkspace::damaged(const std::string& what, int /*error*/) const {
  // EIO whatever the system said: an ENOENT here is not "no such session".
  return Error{EIO, "session " + info_.id + "'s files on disk: " + what +
                        " (was the state directory changed outside paddock?)"};
}

Status SavedWorkspace::write_info() {
  return write_atomically(dir_.get(), "meta.json", info_json(info_).dump());
}

Status SavedWorkspace::touch(bool live) {
  info_.last_used = now_seconds();
  info_.live = live;
  return write_info();
}

Result<SaveStats> SavedWorkspace::save(const TreeWalker& source, const SaveLimits& limits) {
  std::string old_name = generation_name(generation_);
  auto old_generation = open_directory(dir_.get(), old_name);
  if (!old_generation) return damaged(old_name + " is missing", old_generation.error().code);
  auto old_files = open_directory(old_generation->get(), "files");
  if (!old_files) return damaged(old_name + "/files is missing", old_files.error().code);
  std::map<std::string, Identity> before = read_manifest(old_generation->get());

  std::uint64_t next = generation_ + 1;
  std::string next_name = generation_name(next);
  (void)remove_tree(dir_.get(), next_name);  // a save that did not finish
  if (auto made = make_directory(dir_.get(), next_name); !made) return made.error();
  auto failed = [&](const Error& error) -> Error {
    (void)remove_tree(dir_.get(), next_name);
    return error;
  };
  auto generation = open_directory(dir_.get(), next_name);
  if (!generation) return failed(generation.error());
  if (auto made = make_directory(generation->get(), "files"); !made) return failed(made.error());
  auto files = open_directory(generation->get(), "files");
  if (!files) return failed(files.error());

  SaveStats stats;
  std::uint64_t bytes = 0;
  std::map<std::string, Identity> manifest;
  std::map<std::uint64_t, std::string> saved_inodes;  // the source's hard links stay links
  // What is about to be written must fit the room left, checked before each write: a save never
  // takes the state directory past --state-disk, however the tree is shaped.
  auto take_disk = [&](std::uint64_t more, const std::string& path) -> Status {
    if (stats.disk_bytes + more > limits.max_new_disk) {
      return Error{ENOSPC, "the state directory has no room for '" + path + "' (" +
                               format_size(limits.max_new_disk) +
                               " left under --state-disk); nothing of this save was kept"};
    }
    stats.disk_bytes += more;
    return {};
  };
  // An entry that cannot be kept is left out and named; the rest of the workspace is saved.
  auto skip = [&](const TreeEntry& entry, const Error& why) -> Status {
    stats.skipped.push_back(entry.path + " (" + why.message + ")");
    return {};
  };
  auto walked = source([&](const TreeEntry& entry, const FileOpener& open) -> Status {
    if (++stats.entries > limits.max_entries) {
      return Error{EDQUOT, "the work directory has more than " +
                               std::to_string(limits.max_entries) + " files and folders"};
    }
    if (entry.type != TreeEntryType::kFile) {
      // Measured as the live tmpfs measures it: a long symlink takes a page there too.
      stats.used_bytes += entry.disk_bytes;
      if (auto room = take_disk(skeleton_bytes(entry), entry.path); !room) return room;
      if (auto made = make_entry(files->get(), entry); !made) return skip(entry, made.error());
      return {};
    }
    bytes += entry.size;
    if (auto same = saved_inodes.find(entry.ino); same != saved_inodes.end()) {
      if (auto linked = link_file(files->get(), same->second, files->get(), entry.path); !linked) {
        return skip(entry, linked.error());
      }
      manifest[entry.path] = manifest[same->second];
      return {};
    }
    stats.used_bytes += entry.disk_bytes;
    if (stats.used_bytes > limits.max_bytes) {
      return Error{EDQUOT, "the files take more than " + format_size(limits.max_bytes) +
                               " (--session-disk)"};
    }
    auto source_file = open();
    if (!source_file) {
      // Removed or replaced since it was listed: the workspace is saved without it.
      if (source_file.error().code == ENOENT) return {};
      return skip(entry, source_file.error());
    }
    // What the file is now, not what the listing saw: it may have changed in between.
    struct stat now {};
    if (fstat(source_file->get(), &now) != 0) return skip(entry, system_error("examining it"));
    auto size = static_cast<std::uint64_t>(now.st_size);
    Identity identity{static_cast<std::uint64_t>(now.st_ino),
                      now.st_ctim.tv_sec * 1'000'000'000LL + now.st_ctim.tv_nsec, size, ""};
    // Unchanged: the same inode, size and bytes as the last save's copy, which is linked. The
    // bytes are compared every time (see file_digest.h).
    if (auto was = before.find(entry.path); was != before.end() && !was->second.digest.empty() &&
                                            was->second.ino == identity.ino &&
                                            was->second.size == size) {
      auto digest = file_digest(source_file->get(), size);
      if (digest && *digest == was->second.digest &&
          link_file(old_files->get(), entry.path, files->get(), entry.path)) {
        ++stats.linked_files;
        identity.digest = std::move(*digest);
        manifest[entry.path] = std::move(identity);
        saved_inodes[entry.ino] = entry.path;
        return {};
      }
    }
    if (auto room = take_disk(whole_blocks(now.st_blocks * 512ull), entry.path); !room) return room;
    auto copied =
        write_copy(files->get(), entry.path, source_file->get(), size, (entry.mode & 0100) != 0);
    if (!copied) {
      if (copied.error().code == ENOSPC || copied.error().code == EDQUOT) return copied.error();
      if (auto parent = parent_of(files->get(), entry.path)) {
        (void)unlinkat(parent->get(), tree_leaf(entry.path).c_str(), 0);
      }
      return skip(entry, copied.error());
    }
    ++stats.copied_files;
    stats.copied_bytes += copied->written;
    identity.digest = std::move(copied->digest);
    manifest[entry.path] = std::move(identity);
    saved_inodes[entry.ino] = entry.path;
    return {};
  });
  if (!walked) return failed(walked.error());
  if (auto written =
          write_atomically(generation->get(), "manifest.json", manifest_json(manifest).dump());
      !written) {
    return failed(written.error());
  }
  if (auto current = make_current(dir_.get(), next); !current) return failed(current.error());
  generation_ = next;
  (void)remove_tree(dir_.get(), old_name);
  info_.files = stats.entries;
  info_.bytes = bytes;
  info_.used_bytes = stats.used_bytes;
  info_.last_used = now_seconds();
  if (auto written = write_info(); !written) return written.error();
  return stats;
}

Status SavedWorkspace::restore(TreeSink& sink) {
  auto files = this->files();
  if (!files) return files.error();
  int root = files->get();
  // Within one generation, two names share an inode only where the sandbox's did (a save links
  // unchanged files from the generation before, one name each): those become one file again.
  std::map<std::uint64_t, std::string> restored_inodes;
  return walk_tree(root, [&](const TreeEntry& entry, const FileOpener& open) -> Status {
    switch (entry.type) {
      case TreeEntryType::kDirectory:
        return sink.make_directory(entry.path);
      case TreeEntryType::kSymlink:
        return sink.make_symlink(entry.path, entry.link_target);
      case TreeEntryType::kFile: {
        if (entry.nlink > 1) {
          auto [first, added] = restored_inodes.emplace(entry.ino, entry.path);
          if (!added) return sink.make_hard_link(entry.path, first->second);
        }
        auto file = open();
        if (!file) return damaged("cannot read " + entry.path, file.error().code);
        return sink.write_file(entry.path, file->get(), entry.size, (entry.mode & 0100) != 0);
      }
    }
    return {};
  });
}

Status SavedWorkspace::adopt(const TreeWalker& source) {
  auto generation = open_directory(dir_.get(), generation_name(generation_));
  if (!generation) return damaged("the current generation is missing", generation.error().code);
  auto files = open_directory(generation->get(), "files");
  if (!files) return damaged("the current generation is missing", files.error().code);
  auto kept = tree_items(files->get());
  if (!kept) return kept.error();
  std::map<std::string, Identity> before = read_manifest(generation->get());
  std::map<std::string, Identity> manifest;
  auto walked = source([&](const TreeEntry& entry, const FileOpener&) -> Status {
    auto item = kept->find(entry.path);
    if (entry.type != TreeEntryType::kFile || item == kept->end() ||
        item->second.type != TreeEntryType::kFile || item->second.size != entry.size) {
      return {};
    }
    // What the copy holds: the manifest's digest, or the copy's own when it has none (a first
    // generation filled from a snapshot or an archive).
    std::string digest;
    if (auto was = before.find(entry.path); was != before.end()) digest = was->second.digest;
    if (digest.empty()) {
      auto parent = parent_of(files->get(), entry.path);
      if (!parent) return {};
      auto copy = open_tree_file(parent->get(), tree_leaf(entry.path));
      if (!copy) return {};
      auto computed = file_digest(copy->get(), entry.size);
      if (!computed) return {};
      digest = std::move(*computed);
    }
    manifest[entry.path] = {entry.ino, entry.ctime_ns, entry.size, std::move(digest)};
    return {};
  });
  if (!walked) return walked;
  return write_atomically(generation->get(), "manifest.json", manifest_json(manifest).dump());
}

Status SavedWorkspace::snapshot(const std::string& name, std::uint64_t max_new_disk) {
  if (mkdirat(dir_.get(), kSnapshots, 0700) != 0 && errno != EEXIST) {
    return system_error("making the snapshots folder");
  }
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  if (!snapshots) return snapshots.error();
  if (faccessat(snapshots->get(), name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return Error{EEXIST, "session " + info_.id + " already has a snapshot '" + name +
                             "': choose another name"};
  }
  std::string building = name + ".new";
  (void)remove_tree(snapshots->get(), building);
  if (auto made = make_directory(snapshots->get(), building); !made) return made;
  auto failed = [&](const Error& error) -> Status {
    (void)remove_tree(snapshots->get(), building);
    return error;
  };
  auto snapshot = open_directory(snapshots->get(), building);
  if (!snapshot) return failed(snapshot.error());
  if (auto made = make_directory(snapshot->get(), "files"); !made) return failed(made.error());
  auto target = open_directory(snapshot->get(), "files");
  if (!target) return failed(target.error());
  auto current = open_directory(dir_.get(), generation_name(generation_));
  if (!current) return failed(damaged("the current generation is missing", current.error().code));
  auto current_files = open_directory(current->get(), "files");
  if (!current_files) return failed(damaged("the current generation is missing", 0));
  auto linked = link_tree(current_files->get(), target->get(), max_new_disk);
  if (!linked) {
    if (linked.error().code != ENOSPC) return failed(linked.error());
    return failed(Error{ENOSPC, "the state directory has no room for snapshot '" + name +
                                    "': " + linked.error().message});
  }
  json about = {{"created_at", utc_now()}, {"files", linked->first}, {"bytes", linked->second}};
  if (auto written = write_atomically(snapshot->get(), "snapshot.json", about.dump()); !written) {
    return failed(written.error());
  }
  if (syncfs(dir_.get()) != 0) return failed(system_error("syncing the snapshot"));
  if (renameat(snapshots->get(), building.c_str(), snapshots->get(), name.c_str()) != 0) {
    return failed(system_error("keeping the snapshot"));
  }
  if (fsync(snapshots->get()) != 0) return system_error("syncing the snapshot");
  return {};
}

Status SavedWorkspace::mark_created(std::uint64_t max_new_disk) {
  auto made = snapshot(kCreatedSnapshot, max_new_disk);  // within the room its first save was given
  if (!made && made.error().code != EEXIST) return made;
  return {};
}

Result<std::vector<SnapshotInfo>> SavedWorkspace::snapshots() {
  std::vector<SnapshotInfo> found;
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  if (!snapshots) return found;
  auto names = directory_names(snapshots->get());
  if (!names) return names.error();
  for (const auto& name : *names) {
    if (name[0] == '.' || name.ends_with(".new")) continue;
    auto dir = open_directory(snapshots->get(), name);
    if (!dir) continue;
    SnapshotInfo info;
    info.name = name;
    if (auto text = read_small(dir->get(), "snapshot.json"); text) {
      json about = json::parse(*text, nullptr, false);
      if (about.is_object()) {
        info.created_at = about.value("created_at", "");
        info.files = about.value("files", std::uint64_t{0});
        info.bytes = about.value("bytes", std::uint64_t{0});
      }
    }
    found.push_back(std::move(info));
  }
  return found;
}

Result<UniqueFd> SavedWorkspace::files(const std::string& snapshot) {
  if (snapshot.empty()) {
    auto generation = open_directory(dir_.get(), generation_name(generation_));
    if (!generation) return damaged("the current generation is missing", generation.error().code);
    auto files = open_directory(generation->get(), "files");
    if (!files) return damaged("the current generation is missing", files.error().code);
    return files;
  }
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  Result<UniqueFd> dir = Error{ENOENT, ""};
  if (snapshots) dir = open_directory(snapshots->get(), snapshot);
  if (!dir) {
    return Error{ENOENT, "session " + info_.id + " has no snapshot '" + snapshot +
                             "': list_sessions shows its snapshots"};
  }
  auto files = open_directory(dir->get(), "files");
  if (!files) return damaged("snapshot '" + snapshot + "' has no files", files.error().code);
  return files;
}

Result<std::vector<DiffEntry>> SavedWorkspace::diff(const std::string& since) {
  auto before_root = files(since);
  if (!before_root) return before_root.error();
  auto now_root = files();
  if (!now_root) return now_root.error();
  auto before = tree_items(before_root->get());
  if (!before) return before.error();
  auto now = tree_items(now_root->get());
  if (!now) return now.error();
  std::vector<DiffEntry> changes;
  for (const auto& [path, item] : *now) {
    auto old = before->find(path);
    if (old == before->end()) {
      changes.push_back({DiffEntry::Change::kAdded, path, item.type, item.size, 0});
      continue;
    }
    const TreeItem& was = old->second;
    bool changed = was.type != item.type;
    if (!changed && item.type == TreeEntryType::kSymlink)
      changed = was.link_target != item.link_target;
    if (!changed && item.type == TreeEntryType::kFile && was.ino != item.ino) {
      changed = was.size != item.size || !same_content(before_root->get(), now_root->get(), path);
    }
    if (changed)
      changes.push_back({DiffEntry::Change::kChanged, path, item.type, item.size, was.size});
  }
  for (const auto& [path, item] : *before) {
    if (!now->contains(path)) {
      changes.push_back({DiffEntry::Change::kDeleted, path, item.type, item.size, item.size});
    }
  }
  std::sort(changes.begin(), changes.end(),
            [](const DiffEntry& a, const DiffEntry& b) { return a.path < b.path; });
  return changes;
}

Status SavedWorkspace::remove() {
  std::string id = info_.id;
  dir_.reset();
  auto removed = remove_tree(sessions_.get(), id);
  lock_.reset();
  return removed;
}

}  // namespace paddock::state
