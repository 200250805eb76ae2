#include "rootfs/image_flatten.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <random>

#include "core/beneath.h"
#include "core/unique_fd.h"
#include "rootfs/image_store.h"

namespace paddock::rootfs {
namespace {

bool is_whiteout(const struct stat& info) {
  return S_ISCHR(info.st_mode) && info.st_rdev == 0;
}

bool is_opaque(int dir_fd) {
  char value = 0;
  return fgetxattr(dir_fd, "user.overlay.opaque", &value, 1) == 1 && value == 'y';
}

std::vector<std::string> names_in(int dir_fd) {
  std::vector<std::string> names;
  int listing_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* dir = listing_fd < 0 ? nullptr : fdopendir(listing_fd);
  if (dir == nullptr) {
    if (listing_fd >= 0) close(listing_fd);
    return names;
  }
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  closedir(dir);
  return names;
}

// A copy where a hard link is not possible (another file system, a link count at its limit).
core::Status copy_entry(int from, int to, const std::string& name, const struct stat& info) {
  if (S_ISLNK(info.st_mode)) {
    std::array<char, 4096> target{};
    ssize_t length = readlinkat(from, name.c_str(), target.data(), target.size() - 1);
    if (length < 0 || symlinkat(target.data(), to, name.c_str()) != 0) {
      return core::system_error("copying symlink " + name);
    }
    return {};
  }
  if (S_ISFIFO(info.st_mode)) {
    if (mkfifoat(to, name.c_str(), info.st_mode & 07777) != 0) return core::system_error(name);
    return {};
  }
  if (!S_ISREG(info.st_mode)) return {};  // sockets and devices have no place in an image
  core::UniqueFd in(openat(from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  core::UniqueFd out(openat(to, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            info.st_mode & 0777));
  if (!in.valid() || !out.valid()) return core::system_error("copying " + name);
  std::array<char, 65536> buffer{};
  for (;;) {
    ssize_t got = read(in.get(), buffer.data(), buffer.size());
    if (got == 0) return {};
    if (got < 0 || write(out.get(), buffer.data(), static_cast<std::size_t>(got)) != got) {
      return core::system_error("copying " + name);
    }
  }
}

class Flattener {
 public:
  explicit Flattener(int root) : root_(root) {}

  // Lays one layer over what the lower ones made.
  core::Status merge(int from, int to, const std::string& path) {
    for (const auto& name : names_in(from)) {
      struct stat info {};
      if (fstatat(from, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return core::system_error("reading " + path + name);
      }
      std::string child = path + name;
      if (is_whiteout(info)) {
        if (auto removed = remove(to, name, child); !removed) return removed;
        continue;
      }
      if (S_ISDIR(info.st_mode)) {
        if (auto merged = merge_directory(from, to, name, child, info); !merged) return merged;
        continue;
      }
      if (auto removed = remove(to, name, child); !removed) return removed;
      if (linkat(from, name.c_str(), to, name.c_str(), 0) != 0) {
        if (auto copied = copy_entry(from, to, name, info); !copied) return copied;
      }
    }
    return {};
  }

  // Directories are built writable by their owner; the modes the top layers give them go on
  // last, deepest first, so a read-only directory can still be filled by a higher layer. Each is
  // reached with no symlink on the way: a later layer may have put one where a directory was.
  core::Status apply_modes() {
    for (auto it = modes_.rbegin(); it != modes_.rend(); ++it) {
      int fd = core::open_beneath(root_, it->first.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
                                  RESOLVE_NO_SYMLINKS);
      if (fd < 0) {
        if (fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR) continue;  // replaced since
        return core::system_error("opening " + it->first, -fd);
      }
      core::UniqueFd dir(fd);
      if (fchmod(dir.get(), it->second) != 0) {
        return core::system_error("setting the mode of " + it->first);
      }
    }
    return {};
  }

 private:
  // Removes `name` (at `path`) from the copy, and the modes recorded for what it held.
  core::Status remove(int dir, const std::string& name, const std::string& path) {
    modes_.erase(path);
    std::string below = path + "/";
    for (auto it = modes_.lower_bound(below); it != modes_.end() && it->first.starts_with(below);) {
      it = modes_.erase(it);
    }
    return remove_tree_at(dir, name.c_str());
  }

  core::Status merge_directory(int from, int to, const std::string& name, const std::string& path,
                               const struct stat& info) {
    core::UniqueFd source(
        openat(from, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!source.valid()) return core::system_error("opening " + path);
    struct stat existing {};
    bool present = fstatat(to, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
    // A directory replaces a file or symlink of a lower layer, and an opaque one replaces a
    // lower directory's contents too.
    if (present && (!S_ISDIR(existing.st_mode) || is_opaque(source.get()))) {
      if (auto removed = remove(to, name, path); !removed) return removed;
      present = false;
    }
    if (!present && mkdirat(to, name.c_str(), 0700) != 0)
      return core::system_error("creating " + path);
    core::UniqueFd target(
        openat(to, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!target.valid()) return core::system_error("opening " + path);
    modes_[path] = info.st_mode & 07777;
    return merge(source.get(), target.get(), path + "/");
  }

  int root_;
  std::map<std::string, mode_t> modes_;  // relative path -> mode, applied by apply_modes
};

std::string partial_name(const std::string& destination) {
  std::random_device random;
  return destination + ".partial-" + std::to_string(getpid()) + "-" + std::to_string(random());
}

}  // namespace

core::Status flatten_layers(const std::vector<std::string>& layers_top_first,
                            const std::string& destination) {
  struct stat info {};
  if (stat(destination.c_str(), &info) == 0) return {};
  std::string parent = destination.substr(0, destination.rfind('/'));
  if (!parent.empty() && mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) {
    return core::system_error("flattening the image's layers: creating " + parent);
  }
  std::string partial = partial_name(destination);
  auto abandon = [&](core::Status status) {
    (void)remove_tree(partial);
    return status.error().context("flattening the image's layers into " + destination);
  };
  if (mkdir(partial.c_str(), 0755) != 0) {
    return core::system_error("flattening the image's layers: creating " + partial);
  }
  core::UniqueFd root(open(partial.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return abandon(core::system_error("opening " + partial));
  Flattener flattener(root.get());
  for (auto layer = layers_top_first.rbegin(); layer != layers_top_first.rend(); ++layer) {
    core::UniqueFd source(open(layer->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!source.valid()) return abandon(core::system_error("opening layer " + *layer));
    if (auto merged = flattener.merge(source.get(), root.get(), ""); !merged) {
      return abandon(merged);
    }
  }
  if (auto modes = flattener.apply_modes(); !modes) return abandon(modes);
  root.reset();
  if (rename(partial.c_str(), destination.c_str()) != 0) {
    // Somebody else finished the same copy first: theirs is as good as ours.
    if (errno == EEXIST || errno == ENOTEMPTY) {
      (void)remove_tree(partial);
      return {};
    }
    return abandon(core::system_error("renaming " + partial));
  }
  return {};
}

}  // namespace paddock::rootfs
