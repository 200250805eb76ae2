#pragma once

// Names of a layer's entries, and lookups of them inside the directory a layer is unpacked into
// (layer_unpacker.cc): the archive is hostile, so every name stays inside that directory.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::rootfs {

// Names come from the archive: shown in messages without letting control bytes through.
std::string printable(std::string_view raw);

// The archive's name as path components inside the target: empty and "." components go, ".."
// removes the previous one and may not climb above the root (which is an error, as in Docker:
// no honest layer needs it, and refusing is clearer than a silent clamp).
core::Result<std::vector<std::string>> split_path(std::string_view raw);

std::string join(std::span<const std::string> parts);

// openat2 with the target `root` as "/" (RESOLVE_IN_ROOT): "..", absolute symlinks and relative
// ones that climb all stop at the target; magic links and mount crossings are refused. `path`
// empty means the target itself.
core::Result<core::UniqueFd> open_in_root(int root, const std::string& path, std::uint64_t flags);

// Removes directory `name` of `parent` and everything in it with fd-relative calls only:
// unlinkat never follows a symlink, and each level is opened O_NOFOLLOW from its parent's fd, so
// nothing outside can be reached.
core::Status remove_tree(int parent, const std::string& name);

}  // namespace paddock::rootfs
