// Copies and links between trees on the state directory's disk, counting what each takes there.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "core/units.h"
#include "state/file_digest.h"
#include "state/workspace_parts.h"

namespace paddock::state {
namespace workspace_parts {

// What an entry takes on the state directory's disk beyond its data: a folder is one block, and
// so is a symlink too long for the inode (ext4 keeps up to 59 bytes there). tmpfs keeps both in
// memory for nearly nothing, so a save must count them itself.
std::uint64_t skeleton_bytes(const core::TreeEntry& entry) {
  if (entry.type == core::TreeEntryType::kDirectory) return kDiskBlock;
  if (entry.type == core::TreeEntryType::kSymlink && entry.link_target.size() >= 60)
    return kDiskBlock;
  return 0;
}

std::uint64_t whole_blocks(std::uint64_t bytes) {
  return (bytes + kDiskBlock - 1) / kDiskBlock * kDiskBlock;
}

// Creates the file `path` of `root` (new: never over another), copies `source` into it and
// digests what was written: the copy's own digest, so a write racing the copy is never taken
// for what the copy holds.
core::Result<Copied> write_copy(int root, const std::string& path, int source, std::uint64_t size,
                                bool executable) {
  auto parent = parent_of(root, path);
  if (!parent) return parent.error();
  std::string leaf = core::tree_leaf(path);
  core::UniqueFd target(openat(parent->get(), leaf.c_str(),
                               O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                               executable ? 0700 : 0600));
  if (!target.valid()) return core::system_error("writing " + path);
  auto written = core::copy_file_data(source, target.get(), size);
  if (!written) return written.error();
  auto digest = file_digest(target.get(), size);
  if (!digest) return digest.error();
  return Copied{*written, std::move(*digest)};
}

// Links the file `from` of `from_root` as `to` of `to_root`.
core::Status link_file(int from_root, const std::string& from, int to_root, const std::string& to) {
  auto from_parent = parent_of(from_root, from);
  if (!from_parent) return from_parent.error();
  auto to_parent = parent_of(to_root, to);
  if (!to_parent) return to_parent.error();
  if (linkat(from_parent->get(), core::tree_leaf(from).c_str(), to_parent->get(),
             core::tree_leaf(to).c_str(), 0) != 0) {
    return core::system_error("linking " + to);
  }
  return {};
}

core::Status make_entry(int root, const core::TreeEntry& entry) {
  auto parent = parent_of(root, entry.path);
  if (!parent) return parent.error();
  std::string leaf = core::tree_leaf(entry.path);
  if (entry.type == core::TreeEntryType::kDirectory) return make_directory(parent->get(), leaf);
  if (symlinkat(entry.link_target.c_str(), parent->get(), leaf.c_str()) != 0) {
    return core::system_error("making the link " + entry.path);
  }
  return {};
}

}  // namespace workspace_parts

using namespace workspace_parts;

core::Result<std::pair<std::uint64_t, std::uint64_t>> link_tree(int from, int to,
                                                                std::uint64_t max_new_disk) {
  // Files are shared, folders are not: what the copy's folders take is measured first, and the
  // copy refused before anything is written when it is more than the room left.
  std::uint64_t skeleton = 0;
  auto measured = core::walk_tree(from, [&](const core::TreeEntry& entry, const core::FileOpener&) {
    skeleton += skeleton_bytes(entry);
    return core::Status{};
  });
  if (!measured) return measured.error();
  if (skeleton > max_new_disk) {
    return core::Error{ENOSPC, "its folders take " + core::format_size(skeleton) + ", and " +
                                   core::format_size(max_new_disk) + " is left under --state-disk"};
  }
  std::uint64_t files = 0, bytes = 0;
  auto walked = core::walk_tree(
      from, [&](const core::TreeEntry& entry, const core::FileOpener&) -> core::Status {
        ++files;
        if (entry.type != core::TreeEntryType::kFile) return make_entry(to, entry);
        bytes += entry.size;
        return link_file(from, entry.path, to, entry.path);
      });
  if (!walked) return walked.error();
  return std::pair{files, bytes};
}

}  // namespace paddock::state
