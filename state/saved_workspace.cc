#include "state/saved_workspace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/units.h"
#include "core/utc_time.h"
#include "state/file_digest.h"
#include "state/state_names.h"
#include "state/workspace_parts.h"

namespace paddock::state {

using namespace workspace_parts;

core::Result<std::unique_ptr<SavedWorkspace>> SavedWorkspace::create(
    int sessions_fd, WorkspaceInfo info, const std::function<core::Status(int files_fd)>& fill) {
  if (auto valid = check_state_name(info.id, "session id"); !valid) return valid.error();
  int copy = dup(sessions_fd);
  if (copy < 0) return core::system_error("duplicating the state directory");
  core::UniqueFd sessions(copy);
  std::string building = info.id + ".new";
  if (faccessat(sessions_fd, info.id.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return core::Error{EEXIST, "a session " + info.id + " is already on disk"};
  }
  (void)core::remove_tree(sessions_fd, building);
  if (auto made = make_directory(sessions_fd, building); !made) return made.error();
  auto failed = [&](const core::Error& error) -> core::Error {
    (void)core::remove_tree(sessions_fd, building);
    return error;
  };
  auto dir = open_directory(sessions_fd, building);
  if (!dir) return failed(dir.error());
  auto lock = lock_file(dir->get());
  if (!lock) return failed(lock.error());
  info.created_at = core::utc_now();
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
    if (item.type == core::TreeEntryType::kFile) workspace->info_.bytes += item.size;
    if (item.type != core::TreeEntryType::kDirectory && inodes.insert(item.ino).second) {
      workspace->info_.used_bytes += item.disk_bytes;
    }
  }
  if (auto written = workspace->write_info(); !written) return failed(written.error());
  if (auto current = make_current(workspace->dir_.get(), 1); !current) {
    return failed(current.error());
  }
  if (renameat(sessions_fd, building.c_str(), sessions_fd, workspace->info_.id.c_str()) != 0) {
    return failed(core::system_error("keeping the session on disk"));
  }
  if (fsync(sessions_fd) != 0) return core::system_error("syncing the state directory");
  return workspace;
}

core::Result<std::unique_ptr<SavedWorkspace>> SavedWorkspace::open(int sessions_fd,
                                                                   const std::string& id) {
  if (auto valid = check_state_name(id, "session id"); !valid) return valid.error();
  int copy = dup(sessions_fd);
  if (copy < 0) return core::system_error("duplicating the state directory");
  core::UniqueFd sessions(copy);
  auto dir = open_directory(sessions_fd, id);
  if (!dir) {
    if (dir.error().code == ENOENT) return core::Error{ENOENT, "no session " + id + " on disk"};
    return dir.error().context("session " + id);
  }
  auto lock = lock_file(dir->get());
  if (!lock) return lock.error().context("session " + id);
  auto info = read_info(dir->get());
  if (!info)
    return core::Error{EIO, "session " + id + " on disk cannot be read (" + info.error().message +
                                "): it was changed outside paddock"};
  char target[64] = {};
  ssize_t length = readlinkat(dir->get(), kCurrent, target, sizeof target - 1);
  std::uint64_t generation = length > 0 ? generation_of(target) : 0;
  if (generation == 0) {
    return core::Error{
        EIO,
        "session " + id + " on disk has no complete generation: it was changed outside paddock"};
  }
  return std::unique_ptr<SavedWorkspace>(new SavedWorkspace(
      std::move(sessions), std::move(*dir), std::move(*lock), std::move(*info), generation));
}

SavedWorkspace::~SavedWorkspace() = default;

core::Error SavedWorkspace::damaged(const std::string& what, int /*error*/) const {
  // EIO whatever the system said: an ENOENT here is not "no such session".
  return core::Error{EIO, "session " + info_.id + "'s files on disk: " + what +
                              " (was the state directory changed outside paddock?)"};
}

core::Status SavedWorkspace::write_info() {
  if (auto written = write_atomically(dir_.get(), "meta.json", info_json(info_).dump()); !written) {
    return written;
  }
  written_last_used_ = info_.last_used;
  return {};
}

core::Status SavedWorkspace::touch(bool live, std::vector<std::string> allowed_by_user) {
  bool same = info_.live == live && info_.allowed_by_user == allowed_by_user;
  info_.last_used = now_seconds();
  info_.live = live;
  info_.allowed_by_user = std::move(allowed_by_user);
  // The time of use only orders retention, counted in hours: when nothing else changed it is
  // written once a minute at most, not after every call (a rename each, most of a kept cell's
  // save once nothing else is written).
  if (same && info_.last_used - written_last_used_ < kLastUsedSlackSeconds) return {};
  return write_info();
}

namespace {

// One save's walk over the sandbox's tree into a new generation's `files`: what it has written
// so far, and the generation before it, whose unchanged files it links instead of copying.
//
// The new generation is made only once the walk meets something the one before does not hold as
// it is: until then each entry is only noted, and written when the first difference is met (or
// at the end, if entries are missing). A save that finds nothing changed so writes nothing, and
// the generation before stays current: most saves of a live session's cells are such.
class GenerationWriter {
 public:
  // `make_files` makes the new generation and returns its `files` folder.
  GenerationWriter(const SaveLimits& limits, int old_files,
                   std::function<core::Result<int>()> make_files,
                   std::map<std::string, Identity> before)
      : limits_(limits),
        old_files_(old_files),
        make_files_(std::move(make_files)),
        before_(std::move(before)) {}

  core::Status entry(const core::TreeEntry& entry, const core::FileOpener& open) {
    if (++stats.entries > limits_.max_entries) {
      return core::Error{EDQUOT, "the work directory has more than " +
                                     std::to_string(limits_.max_entries) + " files and folders"};
    }
    if (entry.type != core::TreeEntryType::kFile) {
      // Measured as the live tmpfs measures it: a long symlink takes a page there too.
      stats.used_bytes += entry.disk_bytes;
      if (auto room = take_disk(skeleton_bytes(entry), entry.path); !room) return room;
      if (files_ < 0 && held_before(entry)) return note(entry, Noted::kMade, entry.link_target);
      if (auto writing = start_writing(entry.path); !writing) return writing;
      if (auto made = make_entry(files_, entry); !made) return skip(entry, made.error());
      return {};
    }
    bytes += entry.size;
    if (auto same = saved_inodes_.find(entry.ino); same != saved_inodes_.end()) {
      manifest[entry.path] = manifest[same->second];
      // Unchanged if the last save saw this name as a second name of the same file.
      auto was = take_before(entry.path);
      if (files_ < 0 && was && was->ino == entry.ino) {
        return note(entry, Noted::kSecondName, same->second);
      }
      if (auto writing = start_writing(entry.path); !writing) return writing;
      if (auto linked = link_file(files_, same->second, files_, entry.path); !linked) {
        manifest.erase(entry.path);
        return skip(entry, linked.error());
      }
      return {};
    }
    stats.used_bytes += entry.disk_bytes;
    if (stats.used_bytes > limits_.max_bytes) {
      return core::Error{EDQUOT, "the files take more than " +
                                     core::format_size(limits_.max_bytes) + " (--session-disk)"};
    }
    auto source_file = open();
    if (!source_file) {
      // Removed or replaced since it was listed: the workspace is saved without it.
      if (source_file.error().code == ENOENT) return start_writing(entry.path);
      return skip(entry, source_file.error());
    }
    return file(entry, source_file->get());
  }

  // Ends the walk: writes the new generation if `entries` (as many as the generation before
  // holds) were not all seen unchanged. False when there is none: nothing changed.
  core::Result<bool> finish(std::uint64_t entries_before) {
    if (files_ < 0 && stats.entries == entries_before) return false;
    if (auto writing = start_writing(""); !writing) return writing.error();
    return true;
  }

  SaveStats stats;
  std::uint64_t bytes = 0;
  std::map<std::string, Identity> manifest;

 private:
  // An entry seen unchanged before the new generation was made, written when it is: only what
  // writing it takes, for a save may note up to max_entries of them.
  struct Noted {
    enum Kind : std::uint8_t { kMade, kLinked, kSecondName } kind;
    core::TreeEntryType type;
    std::uint32_t mode;
    std::uint64_t size;
    std::uint64_t disk_bytes;
    std::string path;
    std::string other;  // kMade: a link's target; kSecondName: the name it shares its file with

    core::TreeEntry entry() const {
      core::TreeEntry entry;
      entry.path = path;
      entry.type = type;
      entry.mode = mode;
      entry.size = size;
      entry.disk_bytes = disk_bytes;
      if (kind == kMade) entry.link_target = other;
      return entry;
    }
  };

  core::Status note(const core::TreeEntry& entry, Noted::Kind kind, std::string other) {
    noted_.push_back(
        {kind, entry.type, entry.mode, entry.size, entry.disk_bytes, entry.path, std::move(other)});
    return {};
  }

  // Makes the new generation, then writes every entry noted so far into it, in the order seen
  // (folders before what they hold). A noted entry that cannot be written is left out and named,
  // as it would have been when first seen.
  core::Status start_writing(const std::string& path) {
    if (files_ >= 0) return {};
    if (auto room = fits(path); !room) return room;
    auto files = make_files_();
    if (!files) return files.error();
    files_ = *files;
    for (const Noted& noted : noted_) {
      core::TreeEntry entry = noted.entry();
      core::Status written;
      if (noted.kind == Noted::kMade) {
        written = make_entry(files_, entry);
      } else if (noted.kind == Noted::kSecondName) {
        // The generation before holds this name too, as a link of the same copy: where the
        // first name could not be written, it is taken from there.
        written = link_file(files_, noted.other, files_, entry.path);
        if (!written) written = link_or_copy_unchanged(entry, false);
      } else {
        written = link_or_copy_unchanged(entry, true);
      }
      if (!written) {
        manifest.erase(entry.path);
        (void)skip(entry, written.error());
      }
    }
    noted_ = {};  // and its memory, which the rest of the save does not need
    return {};
  }

  // An unchanged file into the new generation: a link to the copy before, or, where the link
  // fails, a copy of that copy (the same bytes, checked by the digest when it was seen).
  // `counted_linked`: the stats count it as a linked file already.
  core::Status link_or_copy_unchanged(const core::TreeEntry& entry, bool counted_linked) {
    if (link_file(old_files_, entry.path, files_, entry.path)) return {};
    auto parent = parent_of(old_files_, entry.path);
    if (!parent) return parent.error();
    auto copy = core::open_tree_file(parent->get(), core::tree_leaf(entry.path));
    if (!copy) return copy.error();
    if (auto room = take_disk(whole_blocks(entry.disk_bytes), entry.path); !room) return room;
    auto written =
        write_copy(files_, entry.path, copy->get(), entry.size, (entry.mode & 0100) != 0);
    if (!written) return written.error();
    if (counted_linked) --stats.linked_files;
    ++stats.copied_files;
    stats.copied_bytes += written->written;
    return {};
  }

  // What is about to be written must fit the room left, checked before each write: a save never
  // takes the state directory past --state-disk, however the tree is shaped. Before the new
  // generation is made nothing is written, and what is noted is checked when it is (fits).
  core::Status take_disk(std::uint64_t more, const std::string& path) {
    stats.disk_bytes += more;
    return files_ < 0 ? core::Status{} : fits(path);
  }

  core::Status fits(const std::string& path) {
    if (!room_) room_ = limits_.new_disk_room ? limits_.new_disk_room() : limits_.max_new_disk;
    if (stats.disk_bytes <= *room_) return {};
    std::string what = path.empty() ? "the save's folders" : "'" + path + "'";
    return core::Error{ENOSPC, "the state directory has no room for " + what + " (" +
                                   core::format_size(*room_) +
                                   " left under --state-disk); nothing of this save was kept"};
  }

  // An entry that cannot be kept is left out and named; the rest of the workspace is saved.
  // Leaving one out is a change: the generation is written without it.
  core::Status skip(const core::TreeEntry& entry, const core::Error& why) {
    stats.skipped.push_back(entry.path + " (" + why.message + ")");
    return start_writing(entry.path);
  }

  // Whether the generation before holds a folder, or a link to the same target, at this path.
  // Looked up as every path in the copies is, without following a link.
  bool held_before(const core::TreeEntry& entry) const {
    auto parent = parent_of(old_files_, entry.path);
    if (!parent) return false;
    std::string leaf = core::tree_leaf(entry.path);
    struct stat was {};
    if (fstatat(parent->get(), leaf.c_str(), &was, AT_SYMLINK_NOFOLLOW) != 0) return false;
    if (entry.type == core::TreeEntryType::kDirectory) return S_ISDIR(was.st_mode);
    if (!S_ISLNK(was.st_mode)) return false;
    std::string target(entry.link_target.size() + 1, '\0');
    ssize_t length = readlinkat(parent->get(), leaf.c_str(), target.data(), target.size());
    return length == static_cast<ssize_t>(entry.link_target.size()) &&
           target.compare(0, entry.link_target.size(), entry.link_target) == 0;
  }

  // Whether the copy before has the executable bit the file has now. The bit is kept, and a
  // chmod moves neither the inode, the size nor the bytes: without this, a chmod alone would be
  // lost with the next save's link to the copy before.
  bool same_executable_bit(const core::TreeEntry& entry) const {
    auto parent = parent_of(old_files_, entry.path);
    if (!parent) return false;
    struct stat copy {};
    if (fstatat(parent->get(), core::tree_leaf(entry.path).c_str(), &copy, AT_SYMLINK_NOFOLLOW) !=
        0) {
      return false;
    }
    return ((copy.st_mode & S_IXUSR) != 0) == ((entry.mode & 0100) != 0);
  }

  core::Status file(const core::TreeEntry& entry, int source) {
    // What the file is now, not what the listing saw: it may have changed in between.
    struct stat now {};
    if (fstat(source, &now) != 0) return skip(entry, core::system_error("examining it"));
    auto size = static_cast<std::uint64_t>(now.st_size);
    Identity identity{static_cast<std::uint64_t>(now.st_ino),
                      now.st_ctim.tv_sec * 1'000'000'000LL + now.st_ctim.tv_nsec, size, ""};
    if (auto unchanged = linked_unchanged(entry, source, identity)) return *unchanged;
    if (auto writing = start_writing(entry.path); !writing) return writing;
    if (auto room = take_disk(whole_blocks(now.st_blocks * 512ull), entry.path); !room) return room;
    auto copied = write_copy(files_, entry.path, source, size, (entry.mode & 0100) != 0);
    if (!copied) {
      if (copied.error().code == ENOSPC || copied.error().code == EDQUOT) return copied.error();
      if (auto parent = parent_of(files_, entry.path)) {
        (void)unlinkat(parent->get(), core::tree_leaf(entry.path).c_str(), 0);
      }
      return skip(entry, copied.error());
    }
    ++stats.copied_files;
    stats.copied_bytes += copied->written;
    identity.digest = std::move(copied->digest);
    manifest[entry.path] = std::move(identity);
    if (entry.nlink > 1) saved_inodes_[entry.ino] = entry.path;
    return {};
  }

  // What the last save recorded of `path`, taken out: a walk meets each path once, so the
  // record is not needed again, and what the two records hold together stays about one.
  std::optional<Identity> take_before(const std::string& path) {
    auto was = before_.find(path);
    if (was == before_.end()) return std::nullopt;
    Identity identity = std::move(was->second);
    before_.erase(was);
    return identity;
  }

  // Unchanged: the same inode, size and bytes as the last save's copy, which is linked (or
  // noted, until the new generation is made). The bytes are compared every time (see
  // file_digest.h). Nothing when the file must be copied.
  std::optional<core::Status> linked_unchanged(const core::TreeEntry& entry, int source,
                                               Identity& identity) {
    auto was = take_before(entry.path);
    if (!was || was->digest.empty() || was->ino != identity.ino || was->size != identity.size) {
      return std::nullopt;
    }
    if (!same_executable_bit(entry)) return std::nullopt;
    auto digest = file_digest(source, identity.size);
    if (!digest || *digest != was->digest) return std::nullopt;
    if (files_ < 0) {
      (void)note(entry, Noted::kLinked, "");
    } else if (!link_file(old_files_, entry.path, files_, entry.path)) {
      return std::nullopt;
    }
    ++stats.linked_files;
    identity.digest = std::move(*digest);
    manifest[entry.path] = std::move(identity);
    if (entry.nlink > 1) saved_inodes_[entry.ino] = entry.path;
    return core::Status{};
  }

  const SaveLimits& limits_;
  int old_files_;
  std::function<core::Result<int>()> make_files_;
  int files_ = -1;                     // the new generation's, once made
  std::optional<std::uint64_t> room_;  // the room left, asked for once, when first needed
  std::vector<Noted> noted_;
  std::map<std::string, Identity> before_;
  // The source's hard links stay links: the first name saved of each file with more than one.
  std::map<std::uint64_t, std::string> saved_inodes_;
};

}  // namespace

core::Result<SaveStats> SavedWorkspace::save(const core::TreeWalker& source,
                                             const SaveLimits& limits) {
  std::string old_name = generation_name(generation_);
  auto old_generation = open_directory(dir_.get(), old_name);
  if (!old_generation) return damaged(old_name + " is missing", old_generation.error().code);
  auto old_files = open_directory(old_generation->get(), "files");
  if (!old_files) return damaged(old_name + "/files is missing", old_files.error().code);

  std::uint64_t next = generation_ + 1;
  std::string next_name = generation_name(next);
  (void)core::remove_tree(dir_.get(), next_name);  // a save that did not finish
  auto failed = [&](const core::Error& error) -> core::Error {
    (void)core::remove_tree(dir_.get(), next_name);
    return error;
  };
  core::UniqueFd generation;
  core::UniqueFd files;
  auto make_files = [&]() -> core::Result<int> {
    if (auto made = make_directory(dir_.get(), next_name); !made) return made.error();
    auto opened = open_directory(dir_.get(), next_name);
    if (!opened) return opened.error();
    generation = std::move(*opened);
    if (auto made = make_directory(generation.get(), "files"); !made) return made.error();
    auto opened_files = open_directory(generation.get(), "files");
    if (!opened_files) return opened_files.error();
    files = std::move(*opened_files);
    return files.get();
  };

  GenerationWriter writer(limits, old_files->get(), make_files,
                          read_manifest(old_generation->get()));
  auto walked = source([&writer](const core::TreeEntry& entry, const core::FileOpener& open) {
    return writer.entry(entry, open);
  });
  if (!walked) return failed(walked.error());
  auto changed = writer.finish(info_.files);
  if (!changed) return failed(changed.error());
  if (!*changed) {
    // Nothing changed since the last save, which stays current. last_used is written with the
    // next change of the session's info (SavedWorkspace::touch, right after each save).
    info_.last_used = now_seconds();
    writer.stats.disk_bytes = 0;  // nothing was written
    return std::move(writer.stats);
  }
  if (auto written =
          write_atomically(generation.get(), "manifest.json", manifest_text(writer.manifest));
      !written) {
    return failed(written.error());
  }
  if (auto current = make_current(dir_.get(), next); !current) return failed(current.error());
  generation_ = next;
  (void)core::remove_tree(dir_.get(), old_name);
  info_.files = writer.stats.entries;
  info_.bytes = writer.bytes;
  info_.used_bytes = writer.stats.used_bytes;
  info_.last_used = now_seconds();
  if (auto written = write_info(); !written) return written.error();
  return std::move(writer.stats);
}

core::Status SavedWorkspace::restore(core::TreeSink& sink) {
  auto files = this->files();
  if (!files) return files.error();
  int root = files->get();
  // Within one generation, two names share an inode only where the sandbox's did (a save links
  // unchanged files from the generation before, one name each): those become one file again.
  std::map<std::uint64_t, std::string> restored_inodes;
  return core::walk_tree(
      root, [&](const core::TreeEntry& entry, const core::FileOpener& open) -> core::Status {
        switch (entry.type) {
          case core::TreeEntryType::kDirectory:
            return sink.make_directory(entry.path);
          case core::TreeEntryType::kSymlink:
            return sink.make_symlink(entry.path, entry.link_target);
          case core::TreeEntryType::kFile: {
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

core::Status SavedWorkspace::adopt(const core::TreeWalker& source) {
  auto generation = open_directory(dir_.get(), generation_name(generation_));
  if (!generation) return damaged("the current generation is missing", generation.error().code);
  auto files = open_directory(generation->get(), "files");
  if (!files) return damaged("the current generation is missing", files.error().code);
  auto kept = tree_items(files->get());
  if (!kept) return kept.error();
  std::map<std::string, Identity> before = read_manifest(generation->get());
  std::map<std::string, Identity> manifest;
  auto walked = source([&](const core::TreeEntry& entry, const core::FileOpener&) -> core::Status {
    auto item = kept->find(entry.path);
    if (entry.type != core::TreeEntryType::kFile || item == kept->end() ||
        item->second.type != core::TreeEntryType::kFile || item->second.size != entry.size) {
      return {};
    }
    // What the copy holds: the manifest's digest, or the copy's own when it has none (a first
    // generation filled from a snapshot or an archive).
    std::string digest;
    if (auto was = before.find(entry.path); was != before.end()) digest = was->second.digest;
    if (digest.empty()) {
      auto parent = parent_of(files->get(), entry.path);
      if (!parent) return {};
      auto copy = core::open_tree_file(parent->get(), core::tree_leaf(entry.path));
      if (!copy) return {};
      auto computed = file_digest(copy->get(), entry.size);
      if (!computed) return {};
      digest = std::move(*computed);
    }
    manifest[entry.path] = {entry.ino, entry.ctime_ns, entry.size, std::move(digest)};
    return {};
  });
  if (!walked) return walked;
  return write_atomically(generation->get(), "manifest.json", manifest_text(manifest));
}

core::Status SavedWorkspace::remove() {
  std::string id = info_.id;
  dir_.reset();
  auto removed = core::remove_tree(sessions_.get(), id);
  lock_.reset();
  return removed;
}

}  // namespace paddock::state
