#include "core/file_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace paddock::core {
namespace {

std::int64_t nanoseconds(const timespec& time) {
  return static_cast<std::int64_t>(time.tv_sec) * 1'000'000'000 + time.tv_nsec;
}

}  // namespace

Result<std::vector<std::string>> directory_names(int fd) {
  // A new open of it, not a dup: `fd` may be an O_PATH fd, and its offset stays its own. When
  // that is denied (a directory opened for us by someone who may read it), the fd itself is
  // read, from its start.
  int copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0 && errno == EACCES) {
    copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy >= 0) lseek(copy, 0, SEEK_SET);
  }
  if (copy < 0) return system_error("listing a directory");
  DIR* dir = fdopendir(copy);
  if (dir == nullptr) {
    close(copy);
    return system_error("listing a directory");
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  int error = errno;
  closedir(dir);
  if (error != 0) return system_error("listing a directory", error);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

struct Walk {
  const TreeVisitor& visit;
  const DeniedOpener& denied;
  const TreeWalkLimits& limits;
  dev_t device = 0;
  std::uint64_t entries = 0;

  // `path` opened by `denied` as `how`, if it is still the inode `examined`: ENOENT when it was
  // replaced meanwhile (by a symlink, say), as when it was removed.
  Result<UniqueFd> open_denied(const std::string& path, DeniedOpen how,
                               const struct stat& examined) {
    auto opened = denied(path, how);
    if (!opened) return opened;
    struct stat now {};
    if (fstat(opened->get(), &now) != 0) return system_error("examining " + path);
    if (now.st_ino != examined.st_ino || now.st_dev != examined.st_dev) {
      return Error{ENOENT, path + " was replaced while it was walked"};
    }
    return opened;
  }

  Result<UniqueFd> open_directory(int parent, const std::string& name, const std::string& path,
                                  const struct stat& examined) {
    int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return UniqueFd(fd);
    if (errno == EACCES && denied) return open_denied(path, DeniedOpen::kDirectory, examined);
    return system_error("opening " + path);
  }

  Status directory(int fd, const std::string& prefix, std::uint32_t depth) {
    if (depth > limits.max_depth) {
      return Error{ELOOP, "'" + prefix + "' is nested deeper than " +
                              std::to_string(limits.max_depth) + " directories"};
    }
    auto names = directory_names(fd);
    if (!names) return names.error();
    for (const auto& name : *names) {
      if (++entries > limits.max_entries) {
        return Error{EFBIG, "more than " + std::to_string(limits.max_entries) + " entries"};
      }
      std::string path = prefix.empty() ? name : prefix + "/" + name;
      struct stat info {};
      // An entry of a directory we may not search is examined through `denied`, by an O_PATH fd
      // of the entry itself (a symlink stays a symlink), and opened after through `denied` only
      // if it is still that inode.
      UniqueFd examined;
      if (fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // removed since it was listed
        if (errno != EACCES || !denied) return system_error("examining " + path);
        auto found = denied(path, DeniedOpen::kExamine);
        if (!found) {
          if (found.error().code == ENOENT) continue;
          return found.error();
        }
        examined = std::move(*found);
        if (fstat(examined.get(), &info) != 0) return system_error("examining " + path);
      }
      TreeEntry entry;
      entry.path = path;
      entry.mode = info.st_mode & 07777;
      entry.size = static_cast<std::uint64_t>(info.st_size);
      entry.disk_bytes = static_cast<std::uint64_t>(info.st_blocks) * 512;
      entry.ino = info.st_ino;
      entry.nlink = static_cast<std::uint32_t>(info.st_nlink);
      entry.ctime_ns = nanoseconds(info.st_ctim);
      entry.mtime_ns = nanoseconds(info.st_mtim);
      if (S_ISLNK(info.st_mode)) {
        entry.type = TreeEntryType::kSymlink;
        std::string target(PATH_MAX, '\0');
        // An O_PATH fd of the link itself is read with an empty name.
        ssize_t length = examined.valid()
                             ? readlinkat(examined.get(), "", target.data(), target.size())
                             : readlinkat(fd, name.c_str(), target.data(), target.size());
        if (length < 0) {
          if (errno == ENOENT) continue;
          return system_error("reading the link " + path);
        }
        target.resize(static_cast<std::size_t>(length));
        entry.link_target = std::move(target);
        if (auto done = visit(entry, {}); !done) return done;
      } else if (S_ISREG(info.st_mode)) {
        entry.type = TreeEntryType::kFile;
        FileOpener open = [&]() -> Result<UniqueFd> {
          if (examined.valid()) return open_denied(path, DeniedOpen::kFile, info);
          auto file = open_tree_file(fd, name);
          if (!file && file.error().code == EACCES && denied) {
            return open_denied(path, DeniedOpen::kFile, info);
          }
          return file;
        };
        if (auto done = visit(entry, open); !done) return done;
      } else if (S_ISDIR(info.st_mode)) {
        if (info.st_dev != device) continue;  // a mount inside the tree: not the tree's
        entry.type = TreeEntryType::kDirectory;
        if (auto done = visit(entry, {}); !done) return done;
        auto child = examined.valid() ? open_denied(path, DeniedOpen::kDirectory, info)
                                      : open_directory(fd, name, path, info);
        if (!child) {
          if (child.error().code == ENOENT) continue;
          return child.error();
        }
        if (auto done = directory(child->get(), path, depth + 1); !done) return done;
      }
    }
    return {};
  }
};

}  // namespace

Status walk_tree(int root_fd, const TreeVisitor& visit, const DeniedOpener& denied,
                 const TreeWalkLimits& limits) {
  struct stat root {};
  if (fstat(root_fd, &root) != 0) return system_error("examining a directory");
  Walk walk{visit, denied, limits, root.st_dev};
  return walk.directory(root_fd, "", 1);
}

Result<UniqueFd> open_tree_file(int parent_fd, const std::string& name) {
  UniqueFd file(openat(parent_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.valid()) return system_error("opening " + name);
  struct stat info {};
  if (fstat(file.get(), &info) != 0) return system_error("examining " + name);
  if (!S_ISREG(info.st_mode)) return Error{EINVAL, name + " is not a regular file"};
  return file;
}

Result<std::uint64_t> copy_file_data(int source_fd, int target_fd, std::uint64_t size) {
  std::uint64_t written = 0;
  auto end = static_cast<off_t>(size);
  off_t at = 0;
  while (at < end) {
    off_t data = lseek(source_fd, at, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // only a hole is left
      data = at;                  // no SEEK_DATA here: copy everything
    }
    if (data >= end) break;
    off_t hole = lseek(source_fd, data, SEEK_HOLE);
    if (hole < 0 || hole > end) hole = end;
    off_t from = data;
    if (lseek(target_fd, data, SEEK_SET) < 0) return system_error("seeking in a copy");
    while (from < hole) {
      ssize_t sent = sendfile(target_fd, source_fd, &from, static_cast<std::size_t>(hole - from));
      if (sent < 0) {
        if (errno == EINTR) continue;
        return system_error("copying a file");
      }
      if (sent == 0) break;  // the file shrank while it was copied
      written += static_cast<std::uint64_t>(sent);
    }
    if (from < hole) break;
    at = hole;
  }
  // The holes at the end, and the size the file had.
  if (ftruncate(target_fd, static_cast<off_t>(size)) != 0) return system_error("sizing a copy");
  return written;
}

Status remove_tree(int parent_fd, const std::string& name) {
  if (unlinkat(parent_fd, name.c_str(), 0) == 0 || errno == ENOENT) return {};
  if (errno != EISDIR && errno != EPERM) return system_error("removing " + name);
  // A folder its owner may not list or change (an archive's 0500 or 0000) is made the owner's
  // first: without write access its entries cannot go, and without it nothing above it can.
  // AT_SYMLINK_NOFOLLOW: a symlink put in its place is refused, not followed.
  int fd = openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES &&
      fchmodat(parent_fd, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0) {
    fd = openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) return errno == ENOENT ? Status{} : system_error("opening " + name);
  UniqueFd directory(fd);
  struct stat info {};
  if (fstat(directory.get(), &info) == 0 && (info.st_mode & 0700) != 0700) {
    (void)fchmod(directory.get(), 0700);  // not ours to change: the removal below says so
  }
  auto names = directory_names(directory.get());
  if (!names) return names.error();
  for (const auto& child : *names) {
    if (auto removed = remove_tree(directory.get(), child); !removed) return removed;
  }
  if (unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return system_error("removing " + name);
  }
  return {};
}

std::string tree_leaf(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace paddock::core
