#include "rootfs/layer_unpacker.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/unique_fd.h"
#include "core/write_all.h"
#include "rootfs/layer_paths.h"
#include "rootfs/layer_stream.h"

namespace paddock::rootfs {
namespace {

// The uncompressed stream is content plus headers and padding. Headers are small next to any
// real content, so twice the content limit plus some slack lets every honest layer through, while
// a bomb hidden where no file content is counted (padding after the end-of-archive blocks, the
// data of skipped entries) still stops.
constexpr std::uint64_t kStreamSlack = 64ull << 20;
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct Owner {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct DirMeta {
  mode_t mode = 0755;
  std::optional<timespec> mtime;
  std::optional<Owner> owner;
};

class Unpacker {
 public:
  Unpacker(int target, const UnpackLimits& limits, const UnpackRules& rules)
      : target_(target),
        limits_(limits),
        rules_(rules),
        what_(rules.what),
        can_chown_(geteuid() == 0) {}

  core::Status entry(archive* in, archive_entry* entry) {
    if (++stats_.entries > limits_.max_entries) {
      return core::Error{EFBIG, what_ + " has more than " + std::to_string(limits_.max_entries) +
                                    " entries (" + std::string(rules_.limit_note) + ")"};
    }
    const char* raw = archive_entry_pathname(entry);
    // Without a locale, libarchive may only have the UTF-8 form of a pax name.
    if (raw == nullptr) raw = archive_entry_pathname_utf8(entry);
    if (raw == nullptr) return core::invalid_input(what_ + " entry without a name");
    core::Status status = apply(in, entry, raw);
    if (!status.ok()) return status.error().context(what_ + " entry '" + printable(raw) + "'");
    return {};
  }

  // Directory modes and times last: a read-only directory must not block its own children, and
  // creating children would move its mtime. Deepest first (a name sorts after its parent's).
  core::Status finish() {
    for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
      auto dir = open_in_root(target_, it->first, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      if (!dir.ok()) {
        int code = dir.error().code;
        // Replaced by a later entry (a symlink, a file, a whiteout): its metadata went with it.
        if (code == ENOENT || code == ENOTDIR || code == ELOOP) continue;
        return dir.error().context(what_ + " directory '" + printable(it->first) + "'");
      }
      if (fchmod(dir->get(), rules_.modes ? it->second.mode : 0700) != 0) {
        return core::system_error("setting the mode")
            .context(what_ + " directory '" + printable(it->first) + "'");
      }
      keep_owner(it->second.owner, dir->get());
      if (it->second.mtime) {
        timespec times[2] = {*it->second.mtime, *it->second.mtime};
        if (futimens(dir->get(), times) != 0) {
          return core::system_error("setting the time")
              .context(what_ + " directory '" + printable(it->first) + "'");
        }
      }
    }
    return {};
  }

  [[nodiscard]] UnpackStats& stats() { return stats_; }

 private:
  core::Status apply(archive* in, archive_entry* entry, std::string_view raw) {
    auto parts = split_path(raw);
    if (!parts.ok()) return parts.error();
    if (parts->empty()) return {};  // the root itself: the caller's directory, left as it is
    const std::string path = join(*parts);
    const std::string name = parts->back();
    parts->pop_back();
    std::span<const std::string> dirs = *parts;

    // OCI whiteouts, in the form overlayfs reads in a user namespace (mounted with userxattr).
    if (rules_.whiteouts && name.starts_with(".wh.")) {
      if (name == ".wh..wh..opq") return make_opaque(dirs);
      // Other ".wh..wh." names are AUFS bookkeeping (.wh..wh.plnk, ...): meaningless here.
      if (name.starts_with(".wh..wh.")) return {};
      return whiteout(dirs, name.substr(4));
    }

    if (const char* link = archive_entry_hardlink(entry); link != nullptr) {
      return hardlink(dirs, name, path, link);
    }
    switch (archive_entry_filetype(entry)) {
      case AE_IFREG:
        return regular_file(in, entry, dirs, name, path);
      case AE_IFDIR:
        return directory(entry, dirs, name, path);
      case AE_IFLNK:
        return symlink(entry, dirs, name, path);
      case AE_IFIFO:
        if (!rules_.fifos) {
          ++stats_.fifos_skipped;
          return {};
        }
        return fifo(entry, dirs, name, path);
      case AE_IFCHR:
      case AE_IFBLK:
        // Device nodes need privilege, and a sandbox gets its devices from the runtime.
        ++stats_.devices_skipped;
        return {};
      case AE_IFSOCK:
        // A socket in a tar is a leftover of some running program: nothing to keep.
        ++stats_.sockets_skipped;
        return {};
      default:
        return core::invalid_input("unknown entry type");
    }
  }

  // The permission bits that are applied: setuid and setgid never survive (the unpacking user
  // would own setuid files, and nothing in a sandbox should gain privilege from an image).
  mode_t permissions(archive_entry* entry) {
    mode_t mode = archive_entry_perm(entry) & 07777;
    stats_.setid_bits_dropped += std::popcount(static_cast<unsigned>(mode & (S_ISUID | S_ISGID)));
    mode &= ~static_cast<mode_t>(S_ISUID | S_ISGID);
    if (!rules_.sticky && (mode & S_ISVTX) != 0) {
      ++stats_.sticky_bits_dropped;
      mode &= ~static_cast<mode_t>(S_ISVTX);
    }
    return mode;
  }

  // The owner an entry names, when it is not root (root is who unpacks, in effect), and when
  // owners count at all.
  std::optional<Owner> owner_of(archive_entry* entry) const {
    if (!rules_.owners) return std::nullopt;
    auto uid = archive_entry_uid(entry), gid = archive_entry_gid(entry);
    if (uid == 0 && gid == 0) return std::nullopt;
    return Owner{static_cast<uid_t>(uid), static_cast<gid_t>(gid)};
  }

  // Keeps the image's owner: applied where paddock may (unpacking as root), else recorded as
  // "uid:gid" in the user.paddock.owner xattr where the kernel takes one (files and
  // directories), else only counted. `fd` is the entry itself, or its parent with `name`.
  void keep_owner(const std::optional<Owner>& owner, int fd, const char* name = nullptr) {
    if (!owner) return;
    if (can_chown_) {
      int rc = name == nullptr ? fchown(fd, owner->uid, owner->gid)
                               : fchownat(fd, name, owner->uid, owner->gid, AT_SYMLINK_NOFOLLOW);
      if (rc == 0) {
        ++stats_.owners_kept;
        return;
      }
    }
    std::string value = std::to_string(owner->uid) + ":" + std::to_string(owner->gid);
    if (name == nullptr && fsetxattr(fd, kOwnerXattr, value.data(), value.size(), 0) == 0) {
      ++stats_.owners_recorded;
      return;
    }
    ++stats_.foreign_owners;
  }

  static std::optional<timespec> mtime_of(archive_entry* entry) {
    if (!archive_entry_mtime_is_set(entry)) return std::nullopt;
    return timespec{static_cast<time_t>(archive_entry_mtime(entry)),
                    static_cast<long>(archive_entry_mtime_nsec(entry))};
  }

  static core::Status set_mtime(int parent, const std::string& name, archive_entry* entry) {
    auto mtime = mtime_of(entry);
    if (!mtime) return {};
    timespec times[2] = {*mtime, *mtime};
    if (utimensat(parent, name.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
      return core::system_error("setting the time");
    }
    return {};
  }

  // The directory that holds an entry, resolved inside the target, created where missing.
  core::Result<core::UniqueFd> open_parent(std::span<const std::string> dirs) {
    auto parent = open_in_root(target_, join(dirs), O_PATH | O_DIRECTORY);
    if (parent.ok() || parent.error().code != ENOENT) return parent;
    // One component at a time, each resolved from the root again, so a symlink an earlier entry
    // placed on the way resolves inside the target like everything else.
    auto current = open_in_root(target_, "", O_PATH | O_DIRECTORY);
    if (!current.ok()) return current;
    std::string prefix;
    for (const auto& part : dirs) {
      prefix = prefix.empty() ? part : prefix + "/" + part;
      auto next = open_in_root(target_, prefix, O_PATH | O_DIRECTORY);
      if (!next.ok() && next.error().code == ENOENT) {
        if (mkdirat(current->get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
          return core::system_error("creating directory '" + printable(prefix) + "'");
        }
        // 0755 regardless of the umask; an explicit entry for it later overrides this.
        dirs_.try_emplace(prefix, DirMeta{});
        // Still ENOENT here means a dangling symlink sits on the way: an error, as in tar.
        next = open_in_root(target_, prefix, O_PATH | O_DIRECTORY);
      }
      if (!next.ok()) return next;
      current = std::move(next);
    }
    return current;
  }

  // Makes room for a new entry at `name`: whatever is there goes, except that an existing
  // directory stays when the new entry is a directory too. Returns whether a directory stayed.
  // The parent of a new non-directory entry, with whatever the entry replaces gone from it.
  core::Result<core::UniqueFd> parent_for_new(std::span<const std::string> dirs,
                                              const std::string& name, const std::string& path) {
    auto parent = open_parent(dirs);
    if (!parent.ok()) return parent.error();
    if (auto cleared = clear(parent->get(), name, path, false); !cleared.ok()) {
      return cleared.error();
    }
    return parent;
  }

  core::Result<bool> clear(int parent, const std::string& name, const std::string& path,
                           bool keep_directory) {
    struct stat st {};
    if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) return false;
      return core::system_error("looking at what is there");
    }
    if (!S_ISDIR(st.st_mode)) {
      if (unlinkat(parent, name.c_str(), 0) != 0)
        return core::system_error("removing what is there");
      return false;
    }
    if (keep_directory) return true;
    if (auto removed = remove_tree(parent, name); !removed.ok()) return removed.error();
    forget_dirs(path);
    return false;
  }

  // Pending directory metadata under a removed tree no longer applies.
  void forget_dirs(const std::string& path) {
    auto it = dirs_.lower_bound(path);
    while (it != dirs_.end() && it->first.starts_with(path) &&
           (it->first.size() == path.size() || it->first[path.size()] == '/')) {
      it = dirs_.erase(it);
    }
  }

  core::Status regular_file(archive* in, archive_entry* entry, std::span<const std::string> dirs,
                            const std::string& name, const std::string& path) {
    la_int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (declared < 0) return core::invalid_input("negative size");
    auto size = static_cast<std::uint64_t>(declared);
    // Counted before a byte is written, from the header: a bomb stops at its first file.
    if (size > limits_.max_bytes - stats_.bytes) {
      return core::Error{EFBIG, what_ + " exceeds " + std::to_string(limits_.max_bytes) +
                                    " bytes (" + std::string(rules_.limit_note) + ")"};
    }
    stats_.bytes += size;
    mode_t mode = permissions(entry);

    auto parent = parent_for_new(dirs, name, path);
    if (!parent.ok()) return parent.error();
    core::UniqueFd file(openat(parent->get(), name.c_str(),
                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) return core::system_error("creating the file");
    for (;;) {
      const void* block = nullptr;
      std::size_t length = 0;
      la_int64_t offset = 0;
      int r = archive_read_data_block(in, &block, &length, &offset);
      if (r == ARCHIVE_EOF) break;
      if (r < ARCHIVE_WARN) return archive_failure(in, "reading the content");
      // Sparse entries come as blocks at offsets; none may reach past the declared size.
      if (offset < 0 || static_cast<std::uint64_t>(offset) > size ||
          length > size - static_cast<std::uint64_t>(offset)) {
        return core::invalid_input("content beyond the declared size");
      }
      if (int error = core::write_all_at(
              file.get(), std::string_view(static_cast<const char*>(block), length), offset);
          error != 0) {
        return core::system_error("writing the content", error);
      }
    }
    // Trailing holes of a sparse file.
    if (ftruncate(file.get(), static_cast<off_t>(size)) != 0) {
      return core::system_error("setting the size");
    }
    // Created 0600 and changed afterwards: fchmod ignores the umask, and a read-only mode does
    // not get in the way of writing.
    if (!rules_.modes) mode = (mode & S_IXUSR) != 0 ? 0700 : 0600;
    if (fchmod(file.get(), mode) != 0) return core::system_error("setting the mode");
    keep_owner(owner_of(entry), file.get());
    if (auto mtime = mtime_of(entry)) {
      timespec times[2] = {*mtime, *mtime};
      if (futimens(file.get(), times) != 0) return core::system_error("setting the time");
    }
    ++stats_.files;
    return {};
  }

  core::Status directory(archive_entry* entry, std::span<const std::string> dirs,
                         const std::string& name, const std::string& path) {
    mode_t mode = permissions(entry);
    auto parent = open_parent(dirs);
    if (!parent.ok()) return parent.error();
    auto kept = clear(parent->get(), name, path, true);
    if (!kept.ok()) return kept.error();
    // 0755 until finish(): the real mode may take away the write access its children need.
    if (!*kept && mkdirat(parent->get(), name.c_str(), 0755) != 0) {
      return core::system_error("creating the directory");
    }
    dirs_[path] = DirMeta{mode, mtime_of(entry), owner_of(entry)};
    ++stats_.directories;
    return {};
  }

  core::Status symlink(archive_entry* entry, std::span<const std::string> dirs,
                       const std::string& name, const std::string& path) {
    const char* target = archive_entry_symlink(entry);
    if (target == nullptr) target = archive_entry_symlink_utf8(entry);
    if (target == nullptr || *target == '\0')
      return core::invalid_input("symlink without a target");
    if (std::string_view(target).size() >= PATH_MAX) {
      return core::invalid_input("symlink target longer than PATH_MAX");
    }
    auto parent = parent_for_new(dirs, name, path);
    if (!parent.ok()) return parent.error();
    // The target is only data: it is never followed here, and inside the sandbox it resolves
    // against the sandbox's own root.
    if (symlinkat(target, parent->get(), name.c_str()) != 0) {
      return core::system_error("creating the symlink");
    }
    keep_owner(owner_of(entry), parent->get(), name.c_str());
    ++stats_.symlinks;
    return set_mtime(parent->get(), name, entry);
  }

  core::Status fifo(archive_entry* entry, std::span<const std::string> dirs,
                    const std::string& name, const std::string& path) {
    mode_t mode = permissions(entry);
    auto parent = parent_for_new(dirs, name, path);
    if (!parent.ok()) return parent.error();
    if (mkfifoat(parent->get(), name.c_str(), 0600) != 0)
      return core::system_error("creating the FIFO");
    // No fd to fchmod (opening a FIFO blocks), so by name: we just created it, nothing else
    // writes into the target, and a FIFO is not a symlink to follow.
    if (fchmodat(parent->get(), name.c_str(), mode, 0) != 0) {
      return core::system_error("setting the mode");
    }
    keep_owner(owner_of(entry), parent->get(), name.c_str());
    return set_mtime(parent->get(), name, entry);
  }

  // A hardlink's source is resolved inside the target like any name, and the link is made from
  // that file descriptor: it can only ever name an inode already in the target.
  core::Status hardlink(std::span<const std::string> dirs, const std::string& name,
                        const std::string& path, std::string_view link) {
    auto source_parts = split_path(link);
    if (!source_parts.ok()) return source_parts.error().context("link target");
    if (source_parts->empty()) return core::invalid_input("hardlink to the " + what_ + " root");
    const std::string source_path = join(*source_parts);
    // O_NOFOLLOW: a symlink as the source is linked itself (GNU tar does that), not followed.
    auto source = open_in_root(target_, source_path, O_PATH | O_NOFOLLOW);
    if (!source.ok()) return source.error().context("link target");
    struct stat source_stat {};
    if (fstat(source->get(), &source_stat) != 0) return core::system_error("link target");
    if (S_ISDIR(source_stat.st_mode)) return core::invalid_input("hardlink to a directory");

    auto parent = open_parent(dirs);
    if (!parent.ok()) return parent.error();
    struct stat existing {};
    if (fstatat(parent->get(), name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 &&
        existing.st_dev == source_stat.st_dev && existing.st_ino == source_stat.st_ino) {
      ++stats_.hardlinks;
      return {};  // a link to itself, or one that is already there
    }
    if (auto cleared = clear(parent->get(), name, path, false); !cleared.ok()) {
      return cleared.error();
    }
    if (linkat(source->get(), "", parent->get(), name.c_str(), AT_EMPTY_PATH) == 0) {
      ++stats_.hardlinks;
      return {};
    }
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the same link through the fd's /proc entry does
    // not, and still names exactly the inode we resolved (no path is looked up again). Without
    // /proc this fails, and the layer with it: copying instead would silently double the space.
    if (errno != ENOENT && errno != EPERM) return core::system_error("creating the hardlink");
    std::string proc_path = "/proc/self/fd/" + std::to_string(source->get());
    if (linkat(AT_FDCWD, proc_path.c_str(), parent->get(), name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      return core::system_error("creating the hardlink");
    }
    ++stats_.hardlinks;
    return {};
  }

  // ".wh.NAME": NAME from lower layers is deleted, shown to overlayfs as a 0/0 character device
  // (unprivileged users may create exactly this device since Linux 5.8).
  core::Status whiteout(std::span<const std::string> dirs, const std::string& hidden) {
    if (hidden.empty() || hidden == "." || hidden == "..")
      return core::invalid_input("bad whiteout");
    auto parent = open_parent(dirs);
    if (!parent.ok()) return parent.error();
    std::vector<std::string> full(dirs.begin(), dirs.end());
    full.push_back(hidden);
    if (auto cleared = clear(parent->get(), hidden, join(full), false); !cleared.ok()) {
      return cleared.error();
    }
    if (mknodat(parent->get(), hidden.c_str(), S_IFCHR, makedev(0, 0)) != 0) {
      return core::system_error("creating the whiteout");
    }
    return {};
  }

  // ".wh..wh..opq": the directory hides everything below it in lower layers.
  core::Status make_opaque(std::span<const std::string> dirs) {
    if (auto parent = open_parent(dirs); !parent.ok()) return parent.error();
    // fsetxattr needs a real fd, not O_PATH; the directory is still 0755 (modes come last).
    auto dir = open_in_root(target_, join(dirs), O_RDONLY | O_DIRECTORY);
    if (!dir.ok()) return dir.error();
    if (fsetxattr(dir->get(), "user.overlay.opaque", "y", 1, 0) != 0) {
      return core::system_error("marking the directory opaque");
    }
    return {};
  }

  int target_;
  UnpackLimits limits_;
  UnpackRules rules_;
  std::string what_;
  UnpackStats stats_;
  std::map<std::string, DirMeta> dirs_;
  bool can_chown_;
};

}  // namespace

core::Result<UnpackStats> unpack_layer(int blob_fd, int target_fd, const UnpackLimits& limits,
                                       const UnpackRules& rules) {
  auto stream = LayerStream::open(
      blob_fd, saturating_add(saturating_add(limits.max_bytes, limits.max_bytes), kStreamSlack),
      rules.what, rules.diff_id);
  if (!stream.ok()) return stream.error();
  archive* tar = (*stream)->tar();
  Unpacker unpacker(target_fd, limits, rules);
  for (;;) {
    archive_entry* entry = nullptr;
    int r = archive_read_next_header(tar, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      if ((*stream)->failure()) return *(*stream)->failure();
      return archive_failure(tar, "reading the " + std::string(rules.what) + " as tar");
    }
    if (auto applied = unpacker.entry(tar, entry); !applied.ok()) {
      // A failure of the stream beneath says more than the entry that noticed it.
      if ((*stream)->failure()) return *(*stream)->failure();
      return applied.error();
    }
  }
  auto diff_id = (*stream)->finish();
  if (!diff_id.ok()) return diff_id.error();
  if (auto finished = unpacker.finish(); !finished.ok()) return finished.error();
  UnpackStats stats = std::move(unpacker.stats());
  stats.diff_id = std::move(*diff_id);
  return stats;
}

}  // namespace paddock::rootfs
