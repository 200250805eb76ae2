#include "app/host_transfer.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "app/transfer_support.h"
#include "core/thread_fs_identity.h"
#include "core/units.h"
#include "rootfs/image_reference.h"
#include "rootfs/sha256.h"

namespace paddock::app {
namespace {

constexpr int kMaxDepth = 64;

// One file into the session, hashed as it goes; its hex digest.
core::Result<std::string> upload_file(runtime::Session& session, int fd,
                                      const std::string& session_path, const struct stat& info) {
  auto size = static_cast<std::uint64_t>(info.st_size);
  FollowingHasher hasher(fd, size);
  hasher.advance(size);
  if (auto copied = session.copy_in(session_path, fd, size, (info.st_mode & S_IXUSR) != 0);
      !copied) {
    return copied.error();
  }
  return hasher.finish(size);
}

struct FolderEntry {
  std::string path;  // inside the uploaded folder
  bool folder = false;
  bool empty = false;  // a folder with nothing to copy inside
};

struct Walk {
  std::vector<FolderEntry> entries;
  std::uint64_t bytes = 0;
  std::uint32_t files = 0;
  std::uint32_t skipped = 0;
};

core::Error too_many(const std::string& shown, const TransferCaps& caps) {
  return core::invalid_input("'" + shown + "' holds more than " + std::to_string(caps.max_files) +
                             " files and folders (the server's --share-max-files)");
}

// Lists what a folder holds, refusing as soon as a cap is passed: nothing is copied before the
// whole folder is known to fit. Each entry is opened by its single name beneath a folder
// already open, with O_NOFOLLOW, so a symlink is seen as one and never followed.
core::Status walk_folder(int directory, const std::string& prefix, int depth,
                         const TransferCaps& caps, const std::string& shown, Walk& walk,
                         bool* empty) {
  if (depth > kMaxDepth) {
    return core::invalid_input("'" + shown + "' nests folders more than " +
                               std::to_string(kMaxDepth) + " deep");
  }
  int listed = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = listed >= 0 ? fdopendir(listed) : nullptr;
  if (dir == nullptr) {
    if (listed >= 0) close(listed);
    return core::system_error("listing '" + shown + "/" + prefix + "'");
  }
  std::vector<std::string> names;
  std::size_t seen = walk.files + walk.skipped;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    // Skipped entries count too, and the cap holds while a folder is read, not after.
    if (seen + names.size() >= caps.max_files) {
      closedir(dir);
      return too_many(shown, caps);
    }
    names.push_back(std::move(name));
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  *empty = true;
  for (const auto& name : names) {
    std::string path = prefix.empty() ? name : prefix + "/" + name;
    struct stat info {};
    if (fstatat(directory, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
    if (S_ISREG(info.st_mode)) {
      *empty = false;
      walk.bytes += static_cast<std::uint64_t>(info.st_size);
      walk.entries.push_back({path, false, false});
    } else if (S_ISDIR(info.st_mode)) {
      core::UniqueFd child(
          openat(directory, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child.valid()) return core::system_error("opening '" + shown + "/" + path + "'");
      bool child_empty = true;
      std::size_t at = walk.entries.size();
      walk.entries.push_back({path, true, false});
      if (auto walked = walk_folder(child.get(), path, depth + 1, caps, shown, walk, &child_empty);
          !walked) {
        return walked;
      }
      walk.entries[at].empty = child_empty;
      *empty = false;
    } else {
      ++walk.skipped;  // a symlink, FIFO, socket or device: never copied, never followed
      continue;
    }
    if (++walk.files + walk.skipped > caps.max_files) return too_many(shown, caps);
    if (walk.bytes > caps.max_bytes) {
      return core::invalid_input("'" + shown + "' holds more than " + cap_text(caps.max_bytes));
    }
  }
  return {};
}

// One manifest line as sha256sum writes it: a name holding a backslash or a newline is escaped,
// and its line starts with a backslash, so that no two folders share a manifest.
std::string manifest_line(const std::string& hex, const std::string& path) {
  if (path.find_first_of("\\\n") == std::string::npos) return hex + "  " + path + "\n";
  std::string escaped;
  for (char c : path) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return "\\" + hex + "  " + escaped + "\n";
}

// Opens a file of a folder being uploaded, with the share owner's rights.
core::Result<core::UniqueFd> open_as(const ShareOwner& owner, int folder, const std::string& path) {
  core::ThreadFsIdentity as_owner(owner.uid, owner.gid);
  if (!as_owner.status()) return as_owner.status().error();
  return open_no_symlinks(folder, path, O_RDONLY | O_NONBLOCK);
}

std::string join(const std::string& directory, const std::string& name) {
  return directory.empty() ? name : directory + "/" + name;
}

core::Result<TransferReport> upload_folder(runtime::Session& session, const ShareLocation& where,
                                           int top, TransferReport report, const ShareOwner& owner,
                                           const TransferCaps& caps) {
  Walk walk;
  bool empty = true;
  {
    core::ThreadFsIdentity as_owner(owner.uid, owner.gid);
    if (!as_owner.status()) return as_owner.status().error();
    if (auto walked = walk_folder(top, "", 0, caps, report.host_path, walk, &empty); !walked) {
      return walked.error();
    }
  }
  report.folder = true;
  report.skipped = walk.skipped;
  std::string manifest;
  auto make_folder = [&](const std::string& path) -> core::Status {
    auto made = session.make_directory(path);
    if (!made && made.error().code == ENOTSUP) {
      ++report.skipped;
      return {};
    }
    return made;
  };
  if (empty) {
    if (auto made = make_folder(report.session_path); !made) return made.error();
  }
  for (const auto& entry : walk.entries) {
    std::string target = join(report.session_path, entry.path);
    if (entry.folder) {
      if (entry.empty) {
        if (auto made = make_folder(target); !made) return made.error();
      }
      ++report.files;
      continue;
    }
    auto file = open_as(owner, top, entry.path);
    if (!file) {
      return share_path_error({where.share, join(where.relative, entry.path)}, file.error().code)
          .context("uploading " + report.host_path);
    }
    struct stat info {};
    if (fstat(file->get(), &info) != 0 || !S_ISREG(info.st_mode)) {
      return core::invalid_input(
          "'" + report.host_path + "/" + entry.path +
          "' changed into something other than a file while it was uploaded");
    }
    report.bytes += static_cast<std::uint64_t>(info.st_size);
    if (report.bytes > caps.max_bytes) {
      return core::invalid_input("'" + report.host_path + "' grew past " +
                                 cap_text(caps.max_bytes) + " while it was uploaded");
    }
    auto digest = upload_file(session, file->get(), target, info);
    if (!digest) return digest.error();
    manifest += manifest_line(*digest, entry.path);
    ++report.files;
  }
  report.sha256 = "sha256:" + rootfs::digest_hex(rootfs::sha256_of(manifest));
  return report;
}

}  // namespace

core::Result<TransferReport> upload_to_session(runtime::Session& session, const Shares& shares,
                                               const std::string& host_path,
                                               std::string session_path, bool recursive,
                                               const TransferCaps& caps) {
  auto where = shares.locate(host_path);
  if (!where) return where.error();
  auto owner = share_owner(*where->share);
  if (!owner) return owner.error();
  auto source = open_share_for_reading(*where);
  if (!source) return source.error();
  struct stat info {};
  if (fstat(source->get(), &info) != 0) return core::system_error("'" + where->shown() + "'");
  if (session_path.empty()) {
    session_path = where->relative.empty() ? where->share->name : last_component(where->relative);
  }
  if (auto valid = runtime::check_session_path(session_path); !valid) return valid.error();
  TransferReport report;
  report.host_path = where->shown();
  report.host_dir = where->share->host_dir + (where->relative.empty() ? "" : "/" + where->relative);
  report.session_path = session_path;
  if (S_ISDIR(info.st_mode)) {
    if (!recursive) {
      return core::invalid_input("'" + report.host_path +
                                 "' is a folder; pass recursive: true to upload it whole");
    }
    return upload_folder(session, *where, source->get(), std::move(report), *owner, caps);
  }
  if (!S_ISREG(info.st_mode)) {
    return core::invalid_input("'" + report.host_path +
                               "' is neither a regular file nor a folder; only those are copied");
  }
  report.bytes = static_cast<std::uint64_t>(info.st_size);
  if (report.bytes > caps.max_bytes) {
    return core::invalid_input("'" + report.host_path + "' is " + core::format_size(report.bytes) +
                               ", over " + cap_text(caps.max_bytes));
  }
  auto digest = upload_file(session, source->get(), session_path, info);
  if (!digest) return digest.error();
  report.files = 1;
  report.sha256 = "sha256:" + *digest;
  return report;
}

}  // namespace paddock::app
