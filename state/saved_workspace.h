#pragma once

// One session's workspace on disk (docs/sessions.md, "Sessions that last"): its files and
// installed libraries as a live sandbox's work directory last held them, kept so that a later
// server reopens the session where it was.
//
//   sessions/<id>/lock              flock'ed by the one server that has the session open
//   sessions/<id>/meta.json         WorkspaceInfo
//   sessions/<id>/current           a symlink to the last complete generation, swapped by rename
//   sessions/<id>/gen-N/files/...   a generation: the tree; unchanged files are hard links to the
//   sessions/<id>/gen-N/manifest.json   previous generation's, so a save writes only what changed
//   sessions/<id>/snapshots/NAME/files/...  the same, kept by name (".created" is the start)
//
// A generation is written beside the current one and becomes current by one rename, after it
// is synced: a server killed during a save leaves the previous generation, complete. Files on
// disk are never changed in place (they are shared by generations and snapshots); they are the
// server user's, 0600 (0700 when executable), in 0700 directories.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/file_tree.h"
#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::state {

// The snapshot every workspace has: its files as the session started (mark_created), which
// diff_session compares with by default.
inline constexpr const char* kCreatedSnapshot = ".created";

struct WorkspaceInfo {
  std::string id;
  std::string name;  // empty: none
  std::string language;
  std::string created_at;      // "2026-11-28T10:00:00Z"
  std::int64_t last_used = 0;  // seconds since the epoch
  bool live = false;           // it had a live interpreter, whose state a restart loses
  std::uint64_t bytes = 0;     // the current generation's file bytes (apparent sizes)
  // What they took in the live tmpfs, its own measure: allocated blocks, each inode once (a
  // sparse file's holes and a hard link's second name take nothing). The quota's measure.
  std::uint64_t used_bytes = 0;
  std::uint64_t files = 0;  // and its entries
  // Destinations the user allowed "for this session" when asked (paddock mcp --ask network),
  // "host:port": a reopened session keeps them.
  std::vector<std::string> allowed_by_user;
};

struct SaveStats {
  std::uint64_t entries = 0;
  std::uint64_t copied_files = 0;
  std::uint64_t copied_bytes = 0;
  std::uint64_t linked_files = 0;  // unchanged since the last save: hard links, no copy
  std::uint64_t used_bytes = 0;    // WorkspaceInfo::used_bytes
  // What this save added to the state directory's disk: data blocks, folders and long links.
  std::uint64_t disk_bytes = 0;
  // Entries that could not be kept, each "path (why)": the rest of the workspace was saved.
  std::vector<std::string> skipped;
};

struct SaveLimits {
  std::uint64_t max_bytes = 1ull << 40;  // the workspace's used_bytes at most (--session-disk)
  std::uint64_t max_entries = 1'000'000;
  // What the save may add to the state directory's disk (the room --state-disk leaves), checked
  // before anything is written.
  std::uint64_t max_new_disk = ~0ull;
  // Where set, asked for that room instead, once, when the save first has something to write: a
  // save that finds nothing changed does not measure the state directory.
  std::function<std::uint64_t()> new_disk_room;
};

struct SnapshotInfo {
  std::string name;
  std::string created_at;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

struct DiffEntry {
  enum class Change { kAdded, kChanged, kDeleted };
  Change change = Change::kAdded;
  std::string path;
  core::TreeEntryType type = core::TreeEntryType::kFile;
  std::uint64_t size = 0;         // now (kDeleted: before)
  std::uint64_t before_size = 0;  // kChanged
};

class SavedWorkspace {
 public:
  // Makes sessions/<info.id> with a first generation that `fill` writes into the empty
  // directory fd it is given (nothing, a snapshot's files, an archive's), and holds its lock.
  static core::Result<std::unique_ptr<SavedWorkspace>> create(
      int sessions_fd, WorkspaceInfo info,
      const std::function<core::Status(int files_fd)>& fill = {});
  // Opens and locks an existing one; EBUSY when another server holds it, ENOENT when there is
  // none.
  static core::Result<std::unique_ptr<SavedWorkspace>> open(int sessions_fd, const std::string& id);
  ~SavedWorkspace();

  [[nodiscard]] const WorkspaceInfo& info() const { return info_; }
  // Records the time of use and whether it is live (meta.json, written atomically). Where only
  // the time changed, meta.json's may lag it by up to kLastUsedSlackSeconds.
  core::Status touch(bool live, std::vector<std::string> allowed_by_user = {});
  static constexpr std::int64_t kLastUsedSlackSeconds = 60;

  // Writes what `source` walks as a new generation and makes it current. A file with the same
  // inode, size and bytes (state/file_digest.h) as in the last save is linked, not copied.
  // Symlinks are kept as links, never followed. An entry that cannot be kept is named in
  // SaveStats::skipped and the rest is saved; past a limit, nothing is, and the last
  // generation stays current.
  core::Result<SaveStats> save(const core::TreeWalker& source, const SaveLimits& limits = {});
  // Writes the current generation into `sink` (a new sandbox's work directory), as it was: holes
  // stay holes and hard links stay links, so it takes what the saved workspace took.
  core::Status restore(core::TreeSink& sink);
  // After restore: records what `source` (the sandbox just filled) holds as the current
  // generation's identities, so that the next save copies only what then changed.
  core::Status adopt(const core::TreeWalker& source);

  // Keeps the current generation as the session's start (kCreatedSnapshot), once.
  core::Status mark_created(std::uint64_t max_new_disk = ~0ull);
  // The current generation as it is now, kept as `name` (check_state_name first). EEXIST when
  // the name is taken.
  // It shares every file with the generation but has folders of its own: refused (ENOSPC)
  // before anything is written when they take more than `max_new_disk`.
  core::Status snapshot(const std::string& name, std::uint64_t max_new_disk = ~0ull);
  core::Result<std::vector<SnapshotInfo>> snapshots();
  // What changed since snapshot `since` (kCreatedSnapshot for the workspace's start).
  core::Result<std::vector<DiffEntry>> diff(const std::string& since);
  // The files of the current generation (`snapshot` empty) or of a snapshot, for reading.
  core::Result<core::UniqueFd> files(const std::string& snapshot = "");

  // Removes it from disk; the object is unusable after.
  core::Status remove();

 private:
  SavedWorkspace(core::UniqueFd sessions, core::UniqueFd dir, core::UniqueFd lock,
                 WorkspaceInfo info, std::uint64_t generation)
      : sessions_(std::move(sessions)),
        dir_(std::move(dir)),
        lock_(std::move(lock)),
        info_(std::move(info)),
        generation_(generation) {}
  core::Status write_info();
  // A clear error for what was changed on disk by hand.
  [[nodiscard]] core::Error damaged(const std::string& what, int error) const;

  core::UniqueFd sessions_;
  core::UniqueFd dir_;
  core::UniqueFd lock_;
  WorkspaceInfo info_;
  std::uint64_t generation_ = 0;
  std::int64_t written_last_used_ = 0;  // info_.last_used as meta.json last got it
};

// Copies the tree `from` into the empty directory `to`, sharing every file (hard links): a
// snapshot, or a new session from one. Returns its entries and file bytes. Its folders are its
// own: refused (ENOSPC) before anything is written when they take more than `max_new_disk`.
core::Result<std::pair<std::uint64_t, std::uint64_t>> link_tree(int from, int to,
                                                                std::uint64_t max_new_disk = ~0ull);

// The generation a workspace's current symlink names ("gen-12" -> 12), or 0.
std::uint64_t generation_of(const std::string& link_target);

}  // namespace paddock::state
