#include "services/host_transfer.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "core/beneath.h"
#include "core/text.h"
#include "core/thread_fs_identity.h"
#include "core/units.h"
#include "rootfs/image_reference.h"
#include "rootfs/sha256.h"

namespace paddock::mcp {
namespace {

// Files this large are hashed on a thread of their own while they are copied, so a large copy
// costs about the longer of the two rather than their sum; smaller ones are not worth a thread.
constexpr std::uint64_t kHashInParallelFrom = 4u << 20;
constexpr std::size_t kHashBlock = 1u << 20;
constexpr int kMaxDepth = 64;

// Hashes an fd's bytes from offset 0 as they become available (pread, so the copy's own
// offset is untouched and the bytes come from the page cache the copy just filled).
class FollowingHasher {
 public:
  FollowingHasher(int fd, std::uint64_t expected) : fd_(fd) {
    if (expected >= kHashInParallelFrom) thread_ = std::thread([this] { run(); });
  }
  ~FollowingHasher() { stop(); }
  FollowingHasher(const FollowingHasher&) = delete;
  FollowingHasher& operator=(const FollowingHasher&) = delete;

  void advance(std::uint64_t available) {
    {
      std::lock_guard lock(mutex_);
      available_ = std::max(available_, available);
    }
    changed_.notify_one();
  }
  // The hex digest of the first `total` bytes.
  Result<std::string> finish(std::uint64_t total) {
    {
      std::lock_guard lock(mutex_);
      available_ = total;
      total_ = total;
    }
    changed_.notify_one();
    if (thread_.joinable()) {
      thread_.join();
    } else {
      run();
    }
    if (error_ != 0) return system_error("reading the file back to hash it", error_);
    return rootfs::digest_hex(hasher_.digest());
  }

 private:
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      total_ = hashed_;
    }
    changed_.notify_one();
    thread_.join();
  }
  void run() {
    std::string block(kHashBlock, '\0');
    for (;;) {
      std::uint64_t until;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return available_ > hashed_ || total_; });
        if (total_ && hashed_ >= *total_) return;
        until = available_;
      }
      while (hashed_ < until) {
        std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(kHashBlock, until - hashed_));
        ssize_t got = pread(fd_, block.data(), want, static_cast<off_t>(hashed_));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          std::lock_guard lock(mutex_);
          error_ = got < 0 ? errno : EIO;
          total_ = hashed_;
          return;
        }
        hasher_.update(std::string_view(block.data(), static_cast<std::size_t>(got)));
        std::lock_guard lock(mutex_);
        hashed_ += static_cast<std::uint64_t>(got);
      }
    }
  }

  int fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t available_ = 0;
  std::uint64_t hashed_ = 0;
  std::optional<std::uint64_t> total_;
  int error_ = 0;
  rootfs::Sha256 hasher_;
  std::thread thread_;
};

// Opens `path` beneath `directory`, following no symlink at all: a folder's entries as they
// were walked.
Result<UniqueFd> open_no_symlinks(int directory, const std::string& path, int flags) {
  int fd = open_beneath(directory, path.c_str(), flags, RESOLVE_NO_SYMLINKS);
  if (fd < 0) return system_error("'" + path + "'", -fd);
  return UniqueFd(fd);
}

std::string cap_text(std::uint64_t bytes) {
  return format_size(bytes) + " (the server's --share-max-bytes)";
}

// One file into the session, hashed as it goes; its hex digest.
Result<std::string> upload_file(Session& session, int fd, const std::string& session_path,
                                const struct stat& info) {
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

Error too_many(const std::string& shown, const TransferCaps& caps) {
  return invalid_input("'" + shown + "' holds more than " + std::to_string(caps.max_files) +
                       " files and folders (the server's --share-max-files)");
}

// Lists what a folder holds, refusing as soon as a cap is passed: nothing is copied before the
// whole folder is known to fit. Each entry is opened by its single name beneath a folder
// already open, with O_NOFOLLOW, so a symlink is seen as one and never followed.
Status walk_folder(int directory, const std::string& prefix, int depth, const TransferCaps& caps,
                   const std::string& shown, Walk& walk, bool* empty) {
  if (depth > kMaxDepth) {
    return invalid_input("'" + shown + "' nests folders more than " + std::to_string(kMaxDepth) +
                         " deep");
  }
  int listed = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = listed >= 0 ? fdopendir(listed) : nullptr;
  if (dir == nullptr) {
    if (listed >= 0) close(listed);
    return system_error("listing '" + shown + "/" + prefix + "'");
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
      UniqueFd child(
          openat(directory, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child.valid()) return system_error("opening '" + shown + "/" + path + "'");
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
      return invalid_input("'" + shown + "' holds more than " + cap_text(caps.max_bytes));
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

Result<UniqueFd> open_as(const ShareOwner& owner, int folder, const std::string& path);

std::string join(const std::string& directory, const std::string& name) {
  return directory.empty() ? name : directory + "/" + name;
}

Result<TransferReport> upload_folder(Session& session, const ShareLocation& where, int top,
                                     TransferReport report, const ShareOwner& owner,
                                     const TransferCaps& caps) {
  Walk walk;
  bool empty = true;
  {
    ThreadFsIdentity as_owner(owner.uid, owner.gid);
    if (!as_owner.status()) return as_owner.status().error();
    if (auto walked = walk_folder(top, "", 0, caps, report.host_path, walk, &empty); !walked) {
      return walked.error();
    }
  }
  report.folder = true;
  report.skipped = walk.skipped;
  std::string manifest;
  auto make_folder = [&](const std::string& path) -> Status {
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
      return invalid_input("'" + report.host_path + "/" + entry.path +
                           "' changed into something other than a file while it was uploaded");
    }
    report.bytes += static_cast<std::uint64_t>(info.st_size);
    if (report.bytes > caps.max_bytes) {
      return invalid_input("'" + report.host_path + "' grew past " + cap_text(caps.max_bytes) +
                           " while it was uploaded");
    }
    auto digest = upload_file(session, file->get(), target, info);
    if (!digest) return digest.error();
    manifest += manifest_line(*digest, entry.path);
    ++report.files;
  }
  report.sha256 = "sha256:" + rootfs::digest_hex(rootfs::sha256_of(manifest));
  return report;
}

// The last component of a relative path.
std::string last_component(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// Folders a download made, so that a failed download leaves none behind: each held by its parent's
// descriptor, so removing it follows no path.
struct MadeFolders {
  std::vector<std::pair<UniqueFd, std::string>> made;  // parent, name; outermost first
  void remove() {
    for (auto it = made.rbegin(); it != made.rend(); ++it) {
      unlinkat(it->first.get(), it->second.c_str(), AT_REMOVEDIR);  // only if still empty
    }
    made.clear();
  }
};

// Opens (making missing ones) the folder `relative` of a read-write share, each step beneath
// the one before, following no symlink.
Result<UniqueFd> open_download_folder(const ShareLocation& where, MadeFolders& made_folders) {
  auto opened = open_in_share(where, O_PATH | O_DIRECTORY);
  if (opened || opened.error().code != ENOENT) return opened;
  UniqueFd directory(fcntl(where.share->root.get(), F_DUPFD_CLOEXEC, 3));
  std::size_t start = 0;
  while (start < where.relative.size()) {
    std::size_t end = std::min(where.relative.find('/', start), where.relative.size());
    std::string part = where.relative.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return share_path_error(where, EXDEV);
    bool made = mkdirat(directory.get(), part.c_str(), 0755) == 0;
    if (!made && (errno == EACCES || errno == EPERM)) return share_path_error(where, errno);
    if (!made && errno != EEXIST) return system_error("making the folder '" + where.shown() + "'");
    if (made) {
      made_folders.made.emplace_back(UniqueFd(fcntl(directory.get(), F_DUPFD_CLOEXEC, 3)), part);
    }
    auto next = open_no_symlinks(directory.get(), part, O_RDONLY | O_DIRECTORY);
    if (!next) return share_path_error(where, next.error().code);
    directory = std::move(*next);
  }
  return directory;
}

// A name no one can guess: code with a read-write mount of the share could otherwise plant every
// name a download would try, and make it fail.
Result<std::string> random_hex() {
  unsigned char bytes[16];
  for (std::size_t got = 0; got < sizeof bytes;) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error("choosing a temporary name");
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  char digits[3];
  for (unsigned char byte : bytes) {
    std::snprintf(digits, sizeof digits, "%02x", byte);
    hex += digits;
  }
  return hex;
}

// A new file beside the target, which no one else can have opened: an unpredictable name, O_EXCL
// and O_NOFOLLOW (a link planted there is never followed); readable too, so that it is hashed as it
// is written.
Result<std::pair<UniqueFd, std::string>> create_temporary(int directory, const std::string& name) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto random = random_hex();
    if (!random) return random.error();
    std::string temporary = "." + name.substr(0, 200) + ".paddock-" + *random + ".part";
    UniqueFd fd(openat(directory, temporary.c_str(),
                       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644));
    if (fd.valid()) return std::pair{std::move(fd), temporary};
    if (errno != EEXIST) return system_error("creating a file beside '" + name + "'");
  }
  return Error{EEXIST, "could not pick a temporary name beside '" + name + "'"};
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
  UniqueFd directory;
  UniqueFd file;
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
Status prepare_download(const ShareLocation& where, const std::string& name, bool overwrite,
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
      return invalid_input("'" + where.shown() +
                           "' is a symlink on the host; downloads never follow or replace one");
    }
    if (!S_ISREG(existing.st_mode)) {
      return invalid_input("'" + where.shown() + "' exists and is not a regular file");
    }
    if (!overwrite) {
      return invalid_input("'" + where.shown() +
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

// Opens a file of a folder being uploaded, with the share owner's rights.
Result<UniqueFd> open_as(const ShareOwner& owner, int folder, const std::string& path) {
  ThreadFsIdentity as_owner(owner.uid, owner.gid);
  if (!as_owner.status()) return as_owner.status().error();
  return open_no_symlinks(folder, path, O_RDONLY | O_NONBLOCK);
}

}  // namespace

Result<TransferReport> upload_to_session(Session& session, const Shares& shares,
                                         const std::string& host_path, std::string session_path,
                                         bool recursive, const TransferCaps& caps) {
  auto where = shares.locate(host_path);
  if (!where) return where.error();
  auto owner = share_owner(*where->share);
  if (!owner) return owner.error();
  Result<UniqueFd> source = Error{};
  {
    ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (!as_owner.status()) return as_owner.status().error();
    source = open_in_share(*where, O_RDONLY | O_NONBLOCK);
  }
  if (!source) return source.error();
  struct stat info {};
  if (fstat(source->get(), &info) != 0) return system_error("'" + where->shown() + "'");
  if (session_path.empty()) {
    session_path = where->relative.empty() ? where->share->name : last_component(where->relative);
  }
  if (auto valid = check_session_path(session_path); !valid) return valid.error();
  TransferReport report;
  report.host_path = where->shown();
  report.host_dir = where->share->host_dir + (where->relative.empty() ? "" : "/" + where->relative);
  report.session_path = session_path;
  if (S_ISDIR(info.st_mode)) {
    if (!recursive) {
      return invalid_input("'" + report.host_path +
                           "' is a folder; pass recursive: true to upload it whole");
    }
    return upload_folder(session, *where, source->get(), std::move(report), *owner, caps);
  }
  if (!S_ISREG(info.st_mode)) {
    return invalid_input("'" + report.host_path +
                         "' is neither a regular file nor a folder; only those are copied");
  }
  report.bytes = static_cast<std::uint64_t>(info.st_size);
  if (report.bytes > caps.max_bytes) {
    return invalid_input("'" + report.host_path + "' is " + format_size(report.bytes) + ", over " +
                         cap_text(caps.max_bytes));
  }
  auto digest = upload_file(session, source->get(), session_path, info);
  if (!digest) return digest.error();
  report.files = 1;
  report.sha256 = "sha256:" + *digest;
  return report;
}

Result<TransferReport> download_from_session(Session& session, const Shares& shares,
                                             const std::string& session_path,
                                             const std::string& host_path, bool overwrite,
                                             const TransferCaps& caps) {
  if (auto valid = check_session_path(session_path); !valid) return valid.error();
  auto where = shares.locate(host_path);
  if (!where) return where.error();
  if (!where->share->writable) {
    return invalid_input("the share '" + where->share->name +
                         "' is read-only; downloads go into a share the user gave as :rw (" +
                         shares.summary() + ")");
  }
  std::string name = last_component(where->relative);
  if (where->relative.empty() || name == "." || name == "..") {
    return invalid_input("host_path must name a file inside the share, e.g. " + where->share->name +
                         "/" + last_component(session_path));
  }
  auto owner = share_owner(*where->share);
  if (!owner) return owner.error();
  DownloadTarget target;
  // Undoes what the download made in the share, with the rights it was made with.
  auto fail = [&](const Error& error) -> Result<TransferReport> {
    ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (as_owner.status()) target.discard();
    return error;
  };
  {
    ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (!as_owner.status()) return as_owner.status().error();
    if (auto prepared = prepare_download(*where, name, overwrite, target); !prepared) {
      target.discard();
      return prepared.error();
    }
  }
  FollowingHasher hasher(target.file.get(), kHashInParallelFrom);
  auto copied = session.copy_out(session_path, target.file.get(), caps.max_bytes,
                                 [&](std::uint64_t done) { hasher.advance(done); });
  if (!copied) {
    if (copied.error().code == EFBIG) {
      return fail(
          invalid_input("'" + session_path + "' is larger than " + cap_text(caps.max_bytes)));
    }
    return fail(copied.error());
  }
  auto digest = hasher.finish(*copied);
  if (!digest) return fail(digest.error());
  int error = 0;
  {
    ThreadFsIdentity as_owner(owner->uid, owner->gid);
    if (!as_owner.status()) return fail(as_owner.status().error());
    error =
        put_in_place(target.directory.get(), target.file.get(), target.temporary, name, overwrite);
  }
  if (error == EEXIST) {
    return fail(invalid_input("'" + where->shown() +
                              "' appeared meanwhile; pass overwrite: true to replace it"));
  }
  if (error == ESTALE) {
    return fail(invalid_input("'" + where->shown() +
                              "': the temporary file beside it was replaced while it was written "
                              "(by code with a read-write mount of the share?); nothing was put "
                              "in place"));
  }
  if (error != 0) return fail(system_error("putting '" + where->shown() + "' in place", error));
  TransferReport report;
  report.host_path = where->shown();
  report.host_dir = where->share->host_dir + "/" + where->relative;
  report.session_path = session_path;
  report.bytes = *copied;
  report.files = 1;
  report.sha256 = "sha256:" + *digest;
  return report;
}

}  // namespace paddock::mcp
