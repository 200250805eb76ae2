#pragma once

// What the parts of SavedWorkspace (saved_workspace.cc, workspace_disk.cc, save_manifest.cc,
// tree_copy.cc, workspace_diff.cc, workspace_snapshots.cc) share with each other and nothing
// else: the workspace's folders and files on disk.

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/file_tree.h"
#include "core/result.h"
#include "core/unique_fd.h"
#include "state/saved_workspace.h"

namespace paddock::state::workspace_parts {

using json = nlohmann::json;

inline constexpr const char* kCurrent = "current";
inline constexpr const char* kSnapshots = "snapshots";
// The state directory's block: what a folder takes there (ext4's, and most file systems').
inline constexpr std::uint64_t kDiskBlock = 4096;

// workspace_disk.cc
std::string generation_name(std::uint64_t generation);
// The directory that holds `path` inside the tree `root_fd`, following no symlink.
core::Result<core::UniqueFd> parent_of(int root_fd, const std::string& path);
core::Result<core::UniqueFd> open_directory(int parent, const std::string& name);
core::Status make_directory(int parent, const std::string& name);
core::Status write_atomically(int dir, const std::string& name, const std::string& text);
core::Result<std::string> read_small(int dir, const std::string& name);
json info_json(const WorkspaceInfo& info);
core::Result<WorkspaceInfo> read_info(int dir);
std::int64_t now_seconds();
core::Result<core::UniqueFd> lock_file(int dir);
core::Status make_current(int dir, std::uint64_t generation);

// save_manifest.cc
// What a save recorded of each file, by path: the inode its source had, and what the copy holds
// (file_digest). A file is unchanged only when both are the same: metadata alone misses writes
// through a shared mapping.
struct Identity {
  std::uint64_t ino = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t size = 0;
  std::string digest;  // empty: unknown (an older manifest), so the file is copied
};

std::string manifest_text(const std::map<std::string, Identity>& files);
std::map<std::string, Identity> read_manifest(int generation_dir);

// tree_copy.cc
std::uint64_t skeleton_bytes(const core::TreeEntry& entry);
std::uint64_t whole_blocks(std::uint64_t bytes);
struct Copied {
  std::uint64_t written = 0;  // data bytes (holes are not written)
  std::string digest;         // of the copy, as it is on disk
};
core::Result<Copied> write_copy(int root, const std::string& path, int source, std::uint64_t size,
                                bool executable);
core::Status link_file(int from_root, const std::string& from, int to_root, const std::string& to);
core::Status make_entry(int root, const core::TreeEntry& entry);

// workspace_diff.cc
struct TreeItem {
  core::TreeEntryType type;
  std::uint64_t ino;
  std::uint64_t size;
  std::uint64_t disk_bytes;
  std::string link_target;
};
core::Result<std::map<std::string, TreeItem>> tree_items(int root);

}  // namespace paddock::state::workspace_parts
