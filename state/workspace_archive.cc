#include "state/workspace_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/beneath.h"
#include "core/unique_fd.h"
#include "core/write_all.h"
#include "rootfs/layer_paths.h"
#include "rootfs/layer_stream.h"
#include "rootfs/layer_unpacker.h"

namespace paddock::state {
namespace {

// Who owns every entry of an exported archive: the sandbox's user, not the host's ids.
constexpr la_int64_t kArchiveOwner = 1000;
constexpr std::size_t kCopyBlock = 256 * 1024;

struct ArchiveWriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
using ArchiveWriter = std::unique_ptr<archive, ArchiveWriteFree>;

struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using Entry = std::unique_ptr<archive_entry, EntryFree>;

struct DirClose {
  void operator()(DIR* dir) const { closedir(dir); }
};
using DirStream = std::unique_ptr<DIR, DirClose>;

// The names in directory `dir_fd`, sorted. Read through a dup, which shares the fd's offset, so it
// rewinds first: the fd may have been read before.
core::Result<std::vector<std::string>> list_names(int dir_fd) {
  int copy = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return core::system_error("reading the directory");
  DirStream dir(fdopendir(copy));
  if (!dir) {
    core::Error error = core::system_error("reading the directory");
    close(copy);
    return error;
  }
  rewinddir(dir.get());
  std::vector<std::string> names;
  errno = 0;
  while (dirent* child = readdir(dir.get())) {
    std::string_view name = child->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
    errno = 0;
  }
  if (errno != 0) return core::system_error("reading the directory");
  std::sort(names.begin(), names.end());
  return names;
}

// The output fd as libarchive's sink, keeping the system's reason when a write fails.
struct Sink {
  int fd = -1;
  std::optional<core::Error> failure;

  static la_ssize_t write(archive* a, void* client, const void* buffer, size_t length) {
    auto* sink = static_cast<Sink*>(client);
    int error =
        core::write_all(sink->fd, std::string_view(static_cast<const char*>(buffer), length));
    if (error != 0) {
      sink->failure = core::system_error("writing the archive", error);
      archive_set_error(a, error, "%s", sink->failure->message.c_str());
      return -1;
    }
    return static_cast<la_ssize_t>(length);
  }
};

// The data regions of a regular file, as (offset, length), found with SEEK_DATA and SEEK_HOLE;
// empty when the file has no holes (or the file system cannot tell), so that it is written whole.
std::vector<std::pair<off_t, off_t>> data_regions(int fd, off_t size) {
  std::vector<std::pair<off_t, off_t>> regions;
  off_t offset = 0;
  while (offset < size) {
    off_t data = lseek(fd, offset, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // only a hole remains
      return {};
    }
    if (data >= size) break;
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0) return {};
    hole = std::min(hole, size);
    regions.emplace_back(data, hole - data);
    offset = hole;
  }
  if (regions.size() == 1 && regions[0].first == 0 && regions[0].second == size) return {};
  if (regions.empty() && size == 0) return {};
  // A file that is all hole still needs a map; a region of no data at its end says so.
  if (regions.empty()) regions.emplace_back(size, 0);
  return regions;
}

class Exporter {
 public:
  Exporter(archive* out, int tree_fd) : out_(out), tree_fd_(tree_fd) {}

  // Everything in the directory `dir` (the top, or `prefix` less its slash), whose entries are
  // named `prefix` + name: its files and symlinks in name order, then each subdirectory with
  // everything in it. `dir` is closed before the subdirectories are walked, and each is opened
  // again from the top: the walk holds two fds however deep the tree goes (a session's tree can
  // be deep enough to run a server that held one per level out of fds).
  core::Status directory_contents(core::UniqueFd dir, const std::string& prefix) {
    auto names = list_names(dir.get());
    if (!names.ok()) return names.error().context(where(prefix));
    std::vector<std::pair<std::string, struct stat>> subdirectories;
    for (const auto& name : *names) {
      std::string path = prefix + name;
      if (path.size() >= PATH_MAX) {
        return core::invalid_input("'" + rootfs::printable(path.substr(0, 64)) +
                                   "...': a name of PATH_MAX bytes or more cannot be archived");
      }
      struct stat listed {};
      if (fstatat(dir.get(), name.c_str(), &listed, AT_SYMLINK_NOFOLLOW) != 0) {
        return core::system_error("looking at it").context(quoted(path));
      }
      if (S_ISDIR(listed.st_mode)) {
        if (auto readable = check_readable(dir.get(), name, listed); !readable.ok()) {
          return readable.error().context(quoted(path));
        }
        subdirectories.emplace_back(std::move(path), listed);
        continue;
      }
      if (auto written = one(dir.get(), name, path, listed); !written.ok()) {
        return written.error().context(quoted(path));
      }
    }
    dir.reset();
    for (const auto& [path, listed] : subdirectories) {
      if (auto written = directory(path, listed); !written.ok()) return written;
    }
    return {};
  }

  [[nodiscard]] const ArchiveStats& stats() const { return stats_; }

 private:
  static std::string quoted(const std::string& path) { return "'" + rootfs::printable(path) + "'"; }

  static std::string where(const std::string& prefix) {
    return prefix.empty() ? "the top directory" : quoted(prefix);
  }

  // One entry that is not a directory.
  core::Status one(int dir_fd, const std::string& name, const std::string& path,
                   const struct stat& listed) {
    if (!S_ISREG(listed.st_mode) && !S_ISLNK(listed.st_mode)) {
      ++stats_.skipped;  // a device, FIFO or socket: nothing a workspace archive carries
      return {};
    }
    if (listed.st_nlink > 1) {
      auto first = links_.find({listed.st_dev, listed.st_ino});
      if (first != links_.end()) return hardlink(path, first->second, listed);
    }
    core::Status status = S_ISREG(listed.st_mode) ? regular_file(dir_fd, name, path, listed)
                                                  : symlink(dir_fd, name, path, listed);
    // Later names of this inode become hard links to this one.
    if (status.ok() && listed.st_nlink > 1) {
      links_.emplace(std::pair{listed.st_dev, listed.st_ino}, path);
    }
    return status;
  }

  // An entry with what every kind shares: name, type, permission bits, owner, mtime.
  static Entry entry_for(const std::string& path, const struct stat& st, mode_t type) {
    Entry entry(archive_entry_new());
    if (!entry) return entry;
    archive_entry_copy_pathname(entry.get(), path.c_str());
    archive_entry_set_filetype(entry.get(), type);
    archive_entry_set_perm(entry.get(), st.st_mode & 07777);
    archive_entry_set_uid(entry.get(), kArchiveOwner);
    archive_entry_set_gid(entry.get(), kArchiveOwner);
    archive_entry_set_mtime(entry.get(), st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    return entry;
  }

  core::Status write_header(archive_entry* entry) {
    if (entry == nullptr) return core::Error{ENOMEM, "allocating an archive entry"};
    // ARCHIVE_WARN: a name not valid in the locale's charset, kept as its bytes.
    if (archive_write_header(out_, entry) < ARCHIVE_WARN) {
      return rootfs::archive_failure(out_, "writing the header");
    }
    return {};
  }

  // Checks that what was opened is still what was listed.
  static core::Status same_as_listed(int fd, const struct stat& listed) {
    struct stat opened {};
    if (fstat(fd, &opened) != 0) return core::system_error("looking at it");
    if (opened.st_dev != listed.st_dev || opened.st_ino != listed.st_ino) {
      return core::Error{EAGAIN, "it was replaced while being archived"};
    }
    return {};
  }

  // Opens `name` of `dir_fd` without following it, and checks it is still what was listed.
  static core::Result<core::UniqueFd> open_listed(int dir_fd, const std::string& name, int flags,
                                                  const struct stat& listed) {
    core::UniqueFd fd(openat(dir_fd, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return core::system_error("opening it");
    if (auto same = same_as_listed(fd.get(), listed); !same.ok()) return same.error();
    return fd;
  }

  // A session may give its files any mode, even one that keeps their owner out (chmod 000); the
  // server, that owner, then cannot read them either. Said plainly, with the fix, rather than as
  // a bare EACCES further on (a directory without x only fails at its first child).
  static core::Status check_readable(int dir_fd, const std::string& name,
                                     const struct stat& listed) {
    const bool directory = S_ISDIR(listed.st_mode);
    const int want = directory ? R_OK | X_OK : R_OK;
    if (faccessat(dir_fd, name.c_str(), want, AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0) return {};
    if (errno != EACCES) return {};  // the open that follows says what is wrong
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(listed.st_mode & 07777));
    return core::Error{EACCES, std::string("its mode ") + mode +
                                   " keeps out even its owner, so it cannot be read: give it u+" +
                                   (directory ? "rx" : "r") + " and export again"};
  }

  // A subdirectory, opened again from the top with no symlink allowed on the way (the tree
  // may not lead outside even if it changed since it was listed), and everything in it.
  core::Status directory(const std::string& path, const struct stat& listed) {
    int fd =
        core::open_beneath(tree_fd_, path.c_str(), O_RDONLY | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
    if (fd < 0) return core::system_error("opening it", -fd).context(quoted(path));
    core::UniqueFd dir(fd);
    if (auto same = same_as_listed(dir.get(), listed); !same.ok()) {
      return same.error().context(quoted(path));
    }
    if (auto written = write_header(entry_for(path, listed, AE_IFDIR).get()); !written.ok()) {
      return written.error().context(quoted(path));
    }
    ++stats_.directories;
    // What is inside names itself in its errors.
    return directory_contents(std::move(dir), path + "/");
  }

  core::Status hardlink(const std::string& path, const std::string& first, const struct stat& st) {
    Entry entry = entry_for(path, st, S_ISREG(st.st_mode) ? AE_IFREG : AE_IFLNK);
    if (!entry) return core::Error{ENOMEM, "allocating an archive entry"};
    archive_entry_copy_hardlink(entry.get(), first.c_str());
    archive_entry_set_size(entry.get(), 0);
    if (auto written = write_header(entry.get()); !written.ok()) return written;
    ++stats_.files;
    return {};
  }

  core::Status symlink(int dir_fd, const std::string& name, const std::string& path,
                       const struct stat& listed) {
    std::string target(PATH_MAX, '\0');
    ssize_t length = readlinkat(dir_fd, name.c_str(), target.data(), target.size());
    if (length < 0) return core::system_error("reading the symlink");
    if (static_cast<std::size_t>(length) >= target.size()) {
      return core::invalid_input("symlink target longer than PATH_MAX");
    }
    target.resize(static_cast<std::size_t>(length));
    Entry entry = entry_for(path, listed, AE_IFLNK);
    if (!entry) return core::Error{ENOMEM, "allocating an archive entry"};
    archive_entry_copy_symlink(entry.get(), target.c_str());
    if (auto written = write_header(entry.get()); !written.ok()) return written;
    ++stats_.symlinks;
    return {};
  }

  core::Status regular_file(int dir_fd, const std::string& name, const std::string& path,
                            const struct stat& listed) {
    if (auto readable = check_readable(dir_fd, name, listed); !readable.ok()) return readable;
    // O_NONBLOCK: should a FIFO have taken the file's place, opening it must not hang (the
    // check against the listed inode then refuses it).
    auto file = open_listed(dir_fd, name, O_RDONLY | O_NONBLOCK, listed);
    if (!file.ok()) return file.error();
    const off_t size = listed.st_size;
    Entry entry = entry_for(path, listed, AE_IFREG);
    if (!entry) return core::Error{ENOMEM, "allocating an archive entry"};
    archive_entry_set_size(entry.get(), size);
    auto regions = data_regions(file->get(), size);
    for (const auto& [offset, length] : regions) {
      archive_entry_sparse_add_entry(entry.get(), offset, length);
    }
    if (auto written = write_header(entry.get()); !written.ok()) return written;

    // The writer takes the whole content in order and leaves out what the sparse map calls
    // holes: those are handed over as zeros that are never read from the file.
    if (regions.empty()) regions.emplace_back(0, size);
    off_t position = 0;
    for (const auto& [offset, length] : regions) {
      if (auto zeros = hole(offset - position); !zeros.ok()) return zeros;
      if (auto copied = copy(file->get(), offset, length); !copied.ok()) return copied;
      position = offset + length;
    }
    if (auto zeros = hole(size - position); !zeros.ok()) return zeros;
    ++stats_.files;
    stats_.bytes += static_cast<std::uint64_t>(size);
    return {};
  }

  core::Status hole(off_t length) {
    static const std::vector<char> kZeros(kCopyBlock, '\0');
    while (length > 0) {
      auto chunk = static_cast<std::size_t>(std::min<off_t>(length, kZeros.size()));
      if (auto written = write_data(kZeros.data(), chunk); !written.ok()) return written;
      length -= static_cast<off_t>(chunk);
    }
    return {};
  }

  core::Status copy(int fd, off_t offset, off_t length) {
    buffer_.resize(kCopyBlock);
    while (length > 0) {
      auto want = static_cast<std::size_t>(std::min<off_t>(length, buffer_.size()));
      ssize_t n = pread(fd, buffer_.data(), want, offset);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return core::system_error("reading it");
      // Shorter than its size: the tree changed underneath, and the entry cannot be finished
      // honestly (libarchive would pad it with zeros).
      if (n == 0) return core::Error{EAGAIN, "it shrank while being archived"};
      if (auto written = write_data(buffer_.data(), static_cast<std::size_t>(n)); !written.ok()) {
        return written;
      }
      offset += n;
      length -= n;
    }
    return {};
  }

  core::Status write_data(const char* data, std::size_t size) {
    while (size > 0) {
      la_ssize_t n = archive_write_data(out_, data, size);
      if (n < 0) return rootfs::archive_failure(out_, "writing the content");
      if (n == 0) return core::Error{EIO, "writing the content: the archive took nothing"};
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return {};
  }

  archive* out_;
  int tree_fd_;
  ArchiveStats stats_;
  // The first name of each inode with more than one link, for the hard links that follow.
  std::map<std::pair<dev_t, ino_t>, std::string> links_;
  std::vector<char> buffer_;
};

}  // namespace

core::Result<ArchiveStats> export_tree(int tree_fd, int out_fd) {
  // Before the writer, so that it outlives it: freeing an archive still open (an early return)
  // closes it, and the close writes its last block through the sink.
  Sink sink{out_fd, std::nullopt};
  ArchiveWriter writer(archive_write_new());
  archive* out = writer.get();
  if (out == nullptr) return core::Error{ENOMEM, "allocating an archive writer"};
  // pax, not pax_restricted: every entry carries its mtime to the nanosecond.
  if (archive_write_set_format_pax(out) != ARCHIVE_OK ||
      archive_write_add_filter_zstd(out) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(out, 1) != ARCHIVE_OK) {
    return rootfs::archive_failure(out, "setting up the archive writer");
  }
  if (archive_write_open(out, &sink, nullptr, &Sink::write, nullptr) != ARCHIVE_OK) {
    if (sink.failure) return *sink.failure;
    return rootfs::archive_failure(out, "opening the archive");
  }
  core::UniqueFd top(fcntl(tree_fd, F_DUPFD_CLOEXEC, 0));
  if (!top.valid()) return core::system_error("exporting: the tree");
  Exporter exporter(out, tree_fd);
  if (auto walked = exporter.directory_contents(std::move(top), ""); !walked.ok()) {
    // The output failing says more than the entry that was being written when it did.
    if (sink.failure) return sink.failure->context("exporting");
    return walked.error().context("exporting");
  }
  if (archive_write_close(out) != ARCHIVE_OK) {
    if (sink.failure) return sink.failure->context("exporting");
    return rootfs::archive_failure(out, "exporting: finishing the archive");
  }
  return exporter.stats();
}

namespace {

// Removes everything in directory `dir_fd`, never following a symlink (rootfs::remove_tree).
core::Status empty_directory(int dir_fd) {
  auto names = list_names(dir_fd);
  if (!names.ok()) return names.error();
  for (const auto& name : *names) {
    if (unlinkat(dir_fd, name.c_str(), 0) == 0) continue;
    if (errno != EISDIR) return core::system_error("removing '" + rootfs::printable(name) + "'");
    if (auto removed = rootfs::remove_tree(dir_fd, name); !removed.ok()) return removed;
  }
  return {};
}

}  // namespace

core::Result<ArchiveStats> import_tree(int archive_fd, int target_fd, const ArchiveLimits& limits) {
  auto present = list_names(target_fd);
  if (!present.ok()) return present.error().context("importing the archive: the target");
  if (!present->empty()) {
    return core::invalid_input("importing the archive: the target directory is not empty");
  }
  // A workspace is one user's plain files: none of an image's meanings (whiteouts, owners, FIFOs
  // for some daemon, a sticky /tmp, modes that would lock the server out of its own state
  // directory), and the limits are the import's, not a guess at a bomb.
  rootfs::UnpackRules rules;
  rules.what = "archive";
  rules.limit_note = "the import limit";
  rules.whiteouts = false;
  rules.owners = false;
  rules.fifos = false;
  rules.sticky = false;
  rules.modes = false;
  rules.diff_id = false;
  auto unpacked = rootfs::unpack_layer(
      archive_fd, target_fd, rootfs::UnpackLimits{limits.max_bytes, limits.max_entries}, rules);
  if (!unpacked.ok()) {
    // The caller gets its empty directory back, not the part before the bad entry.
    if (auto emptied = empty_directory(target_fd); !emptied.ok()) {
      return core::Error{
          unpacked.error().code,
          "importing: " + unpacked.error().message +
              "; emptying the target afterwards failed too: " + emptied.error().message};
    }
    return unpacked.error().context("importing");
  }
  ArchiveStats stats;
  stats.files = unpacked->files + unpacked->hardlinks;
  stats.directories = unpacked->directories;
  stats.symlinks = unpacked->symlinks;
  stats.bytes = unpacked->bytes;
  stats.skipped = unpacked->devices_skipped + unpacked->fifos_skipped + unpacked->sockets_skipped;
  return stats;
}

}  // namespace paddock::state
