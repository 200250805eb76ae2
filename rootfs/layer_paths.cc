#include "rootfs/layer_paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <memory>

#include "core/beneath.h"

namespace paddock::rootfs {
namespace {

struct DirClose {
  void operator()(DIR* dir) const { closedir(dir); }
};
using DirStream = std::unique_ptr<DIR, DirClose>;

}  // namespace

std::string printable(std::string_view raw) {
  std::string out;
  for (unsigned char c : raw) {
    if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\') {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

core::Result<std::vector<std::string>> split_path(std::string_view raw) {
  if (raw.size() >= PATH_MAX) return core::invalid_input("name longer than PATH_MAX");
  if (raw.find('\0') != std::string_view::npos) return core::invalid_input("name contains NUL");
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= raw.size()) {
    std::size_t end = raw.find('/', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view part = raw.substr(start, end - start);
    if (part == "..") {
      if (parts.empty()) return core::invalid_input("name climbs above the root with '..'");
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.emplace_back(part);
    }
    start = end + 1;
  }
  return parts;
}

std::string join(std::span<const std::string> parts) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

core::Result<core::UniqueFd> open_in_root(int root, const std::string& path, std::uint64_t flags) {
  int fd = paddock::core::open_in_root(root, path.empty() ? "." : path.c_str(),
                                       static_cast<int>(flags), RESOLVE_NO_XDEV);
  if (fd < 0) return core::system_error("resolving '" + printable(path) + "'", -fd);
  return core::UniqueFd(fd);
}

core::Status remove_tree(int parent, const std::string& name) {
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return core::system_error("opening directory '" + printable(name) + "' to remove it");
  DirStream dir(fdopendir(fd));
  if (!dir) {
    core::Error error = core::system_error("reading directory '" + printable(name) + "'");
    close(fd);
    return error;
  }
  std::vector<std::string> children;
  errno = 0;
  while (dirent* child = readdir(dir.get())) {
    std::string_view child_name = child->d_name;
    if (child_name != "." && child_name != "..") children.emplace_back(child_name);
  }
  if (errno != 0) return core::system_error("reading directory '" + printable(name) + "'");
  for (const auto& child : children) {
    if (unlinkat(dirfd(dir.get()), child.c_str(), 0) == 0) continue;
    if (errno != EISDIR) return core::system_error("removing '" + printable(child) + "'");
    if (auto removed = remove_tree(dirfd(dir.get()), child); !removed.ok()) return removed;
  }
  if (unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0) {
    return core::system_error("removing directory '" + printable(name) + "'");
  }
  return {};
}

}  // namespace paddock::rootfs
