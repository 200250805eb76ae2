// What changed in a saved workspace since a snapshot.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "state/workspace_parts.h"

namespace paddock::state {
namespace workspace_parts {

core::Result<std::map<std::string, TreeItem>> tree_items(int root) {
  std::map<std::string, TreeItem> items;
  auto walked = core::walk_tree(
      root, [&](const core::TreeEntry& entry, const core::FileOpener&) -> core::Status {
        items[entry.path] = {entry.type, entry.ino, entry.size, entry.disk_bytes,
                             entry.link_target};
        return {};
      });
  if (!walked) return walked.error();
  return items;
}

namespace {

// Whether the files `path` of two trees hold the same bytes (they are the same size).
bool same_content(int left_root, int right_root, const std::string& path) {
  auto open_in = [&](int root) -> core::UniqueFd {
    auto parent = parent_of(root, path);
    if (!parent) return core::UniqueFd();
    auto file = core::open_tree_file(parent->get(), core::tree_leaf(path));
    return file ? std::move(*file) : core::UniqueFd();
  };
  core::UniqueFd left = open_in(left_root), right = open_in(right_root);
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

}  // namespace
}  // namespace workspace_parts

using namespace workspace_parts;

core::Result<std::vector<DiffEntry>> SavedWorkspace::diff(const std::string& since) {
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
    if (!changed && item.type == core::TreeEntryType::kSymlink)
      changed = was.link_target != item.link_target;
    if (!changed && item.type == core::TreeEntryType::kFile && was.ino != item.ino) {
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

}  // namespace paddock::state
