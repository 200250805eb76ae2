#include "app/host_transfer.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "app/transfer_support.h"
#include "core/random_hex.h"
#include "core/thread_fs_identity.h"

namespace paddock::app {
namespace {

// Folders a download made, so that a failed download leaves none behind: each held by its parent's
// descriptor, so removing it follows no path.
struct MadeFolders {
  std::vector<std::pair<core::UniqueFd, std::string>> made;  // parent, name; outermost first
  void remove() {
    for (auto it = made.rbegin(); it != made.rend(); ++it) {
      unlinkat(it->first.get(), it->second.c_str(), AT_REMOVEDIR);  // only if still empty
    }
    made.clear();
  }
};

// Opens (making missing ones) the folder `relative` of a read-write share, each step beneath
// the one before, following no symlink.
core::Result<core::UniqueFd> open_download_folder(const ShareLocation& where,
                                                  MadeFolders& made_folders) {
  auto opened = open_in_share(where, O_PATH | O_DIRECTORY);
  if (opened || opened.error().code != ENOENT) return opened;
  core::UniqueFd directory(fcntl(where.share->root.get(), F_DUPFD_CLOEXEC, 3));
  std::size_t start = 0;
  while (start < where.relative.size()) {
    std::size_t end = std::min(where.relative.find('/', start), where.relative.size());
    std::string part = where.relative.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return share_path_error(where, EXDEV);
    bool made = mkdirat(directory.get(), part.c_str(), 0755) == 0;
    if (!made && (errno == EACCES || errno == EPERM)) return share_path_error(where, errno);
    if (!made && errno != EEXIST)
      return core::system_error("making the folder '" + where.shown() + "'");
    if (made) {
      made_folders.made.emplace_back(core::UniqueFd(fcntl(directory.get(), F_DUPFD_CLOEXEC, 3)),
                                     part);
    }
    auto next = open_no_symlinks(directory.get(), part, O_RDONLY | O_DIRECTORY);
    if (!next) return share_path_error(where, next.error().code);
    directory = std::move(*next);
  }
  return directory;
}

// A new file beside the target, which no one else can have opened: an unpredictable name, O_EXCL
// and O_NOFOLLOW (a link planted there is never followed); readable too, so that it is hashed as it
// is written.
core::Result<std::pair<core::UniqueFd, std::string>> create_temporary(int directory,
                                                                      const std::string& name) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    // A name no one can guess: code with a read-write mount of the share could otherwise plant
    // every name a download would try, and make it fail.
    auto random = core::random_hex(16, "choosing a temporary name");
    if (!random) return random.error();
    std::string temporary = "." + name.substr(0, 200) + ".paddock-" + *random + ".part";
    core::UniqueFd fd(openat(directory, temporary.c_str(),
                             O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644));
    if (fd.valid()) return std::pair{std::move(fd), temporary};
    if (errno != EEXIST) return core::system_error("creating a file beside '" + name + "'");
  }
  return core::Error{EEXIST, "could not pick a temporary name beside '" + name + "'"};
}

// Puts the finished temporary file in place: atomically, and with RENAME_NOREPLACE unless replacing
// was asked for; only if the name still holds the file written (code with a read-write mount can
// see the name while it is written, and swap a link in). Returns an errno, 0 on success.
int put_in_place(int directory, int written, const std::string& temporary, const std::string& name,
                 bool overwrite) {
  struct stat ours {};
  struct stat there {};
  if (fstat(written, &ours) != 0 ||
      fstatat(directory, temporary.c_str(), &there, AT_SYMLINK_NOFOLLOW) != 0 ||
      ours.st_dev != there.st_dev || ours.st_ino != there.st_ino) {
    return ESTALE;
  }
  if (renameat2(directory, temporary.c_str(), directory, name.c_str(),
                overwrite ? 0 : RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (errno != EINVAL || overwrite) return errno;
  // A file system without RENAME_NOREPLACE: link() refuses an existing name just the same.
  if (linkat(directory, temporary.c_str(), directory, name.c_str(), 0) != 0) return errno;
  unlinkat(directory, temporary.c_str(), 0);
  return 0;
}

// Where a download is written: its folder (made as needed) and a new temporary file there.
struct DownloadTarget {
  MadeFolders made;
  core::UniqueFd directory;
  core::UniqueFd file;
  std::string temporary;
  // Removes the temporary file and the folders made for it.
  void discard() {
    if (!temporary.empty()) unlinkat(directory.get(), temporary.c_str(), 0);
    temporary.clear();
    made.remove();
  }
};

// Opens (or makes) the folder of the download's target `where`, named `name` in it, and a temporary
// file beside it; refuses a target that must not be replaced. Run with the share owner's rights.
core::Status prepare_download(const ShareLocation& where, const std::string& name, bool overwrite,
                              DownloadTarget& target) {
  std::size_t slash = where.relative.rfind('/');
  ShareLocation parent{where.share,
                       slash == std::string::npos ? "" : where.relative.substr(0, slash)};
  auto directory = open_download_folder(parent, target.made);
  if (!directory) return directory.error();
  target.directory = std::move(*directory);
  struct stat existing {};
  if (fstatat(target.directory.get(), name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(existing.st_mode)) {
      return core::invalid_input(
          "'" + where.shown() +
          "' is a symlink on the host; downloads never follow or replace one");
    }
    if (!S_ISREG(existing.st_mode)) {
      return core::invalid_input("'" + where.shown() + "' exists and is not a regular file");
    }
    if (!overwrite) {
      return core::invalid_input(
          "'" + where.shown() +
          "' exists; pass overwrite: true to replace it, or choose another name");
    }
  }
  auto temporary = create_temporary(target.directory.get(), name);
  if (!temporary) {
    int code = temporary.error().code;
    return code == EACCES || code == EPERM ? share_path_error(where, code) : temporary.error();
  }
  target.file = std::move(temporary->first);
  target.temporary = std::move(temporary->second);
  return {};
}

}  // namespace

core::Result<TransferReport> write_into_share(const Shares& shares, const std::string& host_path,
                                              bool overwrite, const ShareWriter& write) {
  auto where = shares.locate(host_path);
  if (!where) return where.error();
  if (!where->share->writable) {
    return core::invalid_input("the share '" + where->share->name +
                               "' is read-only; downloads go into a share the user gave as :rw (" +
                               shares.summary() + ")");
  }
  std::string name = last_component(where->relative);
  if (where->relative.empty() || name == "." || name == "..") {
    return core::invalid_input("host_path must name a file inside the share, e.g. " +
                               where->share->name + "/result");
  }
  auto owner = share_owner(*where->share);
  if (!owner) return owner.error();
  DownloadTarget target;
  // Undoes what the download made in the share, with the rights it was made with.
  auto fail = [&](const core::Error& error) -> core::Result<TransferReport> {
    core::ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (as_owner.status()) target.discard();
    return error;
  };
  {
    core::ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (!as_owner.status()) return as_owner.status().error();
    if (auto prepared = prepare_download(*where, name, overwrite, target); !prepared) {
      target.discard();
      return prepared.error();
    }
  }
  FollowingHasher hasher(target.file.get(), kHashInParallelFrom);
  auto copied = write(target.file.get(), [&](std::uint64_t done) { hasher.advance(done); });
  if (!copied) return fail(copied.error());
  auto digest = hasher.finish(*copied);
  if (!digest) return fail(digest.error());
  int error = 0;
  {
    core::ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (!as_owner.status()) return fail(as_owner.status().error());
    error =
        put_in_place(target.directory.get(), target.file.get(), target.temporary, name, overwrite);
  }
  if (error == EEXIST) {
    return fail(core::invalid_input("'" + where->shown() +
                                    "' appeared meanwhile; pass overwrite: true to replace it"));
  }
  if (error == ESTALE) {
    return fail(
        core::invalid_input("'" + where->shown() +
                            "': the temporary file beside it was replaced while it was written "
                            "(by code with a read-write mount of the share?); nothing was put "
                            "in place"));
  }
  if (error != 0)
    return fail(core::system_error("putting '" + where->shown() + "' in place", error));
  TransferReport report;
  report.host_path = where->shown();
  report.host_dir = where->share->host_dir + "/" + where->relative;
  report.bytes = *copied;
  report.files = 1;
  report.sha256 = "sha256:" + *digest;
  return report;
}

core::Result<TransferReport> download_from_session(runtime::Session& session, const Shares& shares,
                                                   const std::string& session_path,
                                                   const std::string& host_path, bool overwrite,
                                                   const TransferCaps& caps) {
  if (auto valid = runtime::check_session_path(session_path); !valid) return valid.error();
  auto report = write_into_share(
      shares, host_path, overwrite,
      [&](int file, const runtime::CopyProgress& progress) -> core::Result<std::uint64_t> {
        auto copied = session.copy_out(session_path, file, caps.max_bytes, progress);
        if (!copied && copied.error().code == EFBIG) {
          return core::invalid_input("'" + session_path + "' is larger than " +
                                     cap_text(caps.max_bytes));
        }
        return copied;
      });
  if (report) report->session_path = session_path;
  return report;
}

}  // namespace paddock::app
