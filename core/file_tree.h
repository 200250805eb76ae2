#pragma once

// A tree of files walked without ever following a symlink or leaving its file system: each step
// is one name (a readdir entry, never a path) opened relative to its parent's fd with O_NOFOLLOW,
// so a tree someone else controls, and changes while it is walked, cannot lead the walker
// anywhere else. Used to copy a session's work directory to disk and back, and to compare and
// copy the copies (state/).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::core {

enum class TreeEntryType { kFile, kDirectory, kSymlink };

struct TreeEntry {
  std::string path;  // relative to the tree's root, '/'-separated, never empty
  TreeEntryType type = TreeEntryType::kFile;
  std::uint32_t mode = 0;  // permission bits only
  std::uint64_t size = 0;
  std::uint64_t disk_bytes = 0;  // allocated (a sparse file's holes are not)
  // What the file is, as the tree holds it now: while (ino, ctime) stay the same, so has its
  // content, for nothing can set a ctime back.
  std::uint64_t ino = 0;
  std::uint32_t nlink = 1;
  std::int64_t ctime_ns = 0;
  std::int64_t mtime_ns = 0;
  std::string link_target;  // kSymlink
};

// Opens the regular file being visited for reading (the walker's or `DeniedOpener`'s way).
using FileOpener = std::function<Result<UniqueFd>()>;
// What a walk does with each entry, parents before their children; an error stops the walk.
using TreeVisitor = std::function<Status(const TreeEntry& entry, const FileOpener& open)>;
// How a DeniedOpener opens what it is asked for.
enum class DeniedOpen {
  kExamine,    // whatever the path names, without following it (an O_PATH fd; a symlink itself)
  kFile,       // a regular file, for reading
  kDirectory,  // a directory, for listing
};
// Opens `path` some other way, when the walker was denied it (EACCES): a sandbox's init opens
// what its user's mode bits keep from the server. The walker examines first and then checks that
// what it opens is the inode it examined, so a symlink is never followed, even one swapped in.
using DeniedOpener = std::function<Result<UniqueFd>(const std::string& path, DeniedOpen how)>;

struct TreeWalkLimits {
  std::uint64_t max_entries = 1'000'000;
  std::uint32_t max_depth = 256;
};

// Walks everything beneath the directory `root_fd` (not the root itself), in name order. Entries
// that are not files, directories or symlinks (FIFOs, sockets, devices) and directories of other
// file systems (mounts inside it) are left out. `denied`, when set, is asked for what the walker
// may not open itself.
Status walk_tree(int root_fd, const TreeVisitor& visit, const DeniedOpener& denied = {},
                 const TreeWalkLimits& limits = {});

// A tree's walk as a value: what the caller passes to walk_tree, or a sandbox's own walk.
using TreeWalker = std::function<Status(const TreeVisitor& visit)>;

// Where a walked tree is written again, parents before their children: a sandbox's work
// directory, filled from a copy on disk.
class TreeSink {
 public:
  virtual ~TreeSink() = default;
  virtual Status make_directory(const std::string& path) = 0;
  // `size` bytes of `source_fd` from offset 0.
  virtual Status write_file(const std::string& path, int source_fd, std::uint64_t size,
                            bool executable) = 0;
  virtual Status make_symlink(const std::string& path, const std::string& target) = 0;
  // A second name for the file `existing`, written before.
  virtual Status make_hard_link(const std::string& path, const std::string& existing) = 0;
};

// Opens the regular file `name` of `parent_fd` for reading without following a symlink or
// blocking on a FIFO swapped in: EINVAL when it is not a regular file.
Result<UniqueFd> open_tree_file(int parent_fd, const std::string& name);

// Copies `size` bytes of `source_fd` into the empty file `target_fd` from offset 0, keeping
// holes (SEEK_DATA/SEEK_HOLE), so a sparse file stays sparse. Returns the bytes written.
Result<std::uint64_t> copy_file_data(int source_fd, int target_fd, std::uint64_t size);

// The names in the directory `fd` but "." and "..", sorted.
Result<std::vector<std::string>> directory_names(int fd);

// Removes `name` of `parent_fd` and everything beneath it, not following symlinks. Missing is
// not an error.
Status remove_tree(int parent_fd, const std::string& name);

// The last component of a tree path ("a/b/c" -> "c").
std::string tree_leaf(const std::string& path);

}  // namespace paddock::core
