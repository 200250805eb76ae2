// A session's files, opened by its init beneath the work directory and copied in and out.
#include <dirent.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/file_tree.h"
#include "core/units.h"
#include "core/write_all.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/native_session.h"
#include "runtime/native/native_session_parts.h"
#include "runtime/setting_names.h"

namespace paddock::native {
namespace {

// Bytes a sendfile call moves at most: small enough that a hasher following behind reads them
// from the page cache.
constexpr std::size_t kCopyChunk = 2u << 20;

// Copies `size` bytes from `in` (from offset 0) to `out` at its offset, in the kernel; the
// bytes copied, or -errno. Stops early where `in` ends.
long long copy_in_kernel(int in, int out, std::uint64_t size,
                         const runtime::CopyProgress& progress) {
  off_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < size) {
    std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(kCopyChunk, size - offset));
    ssize_t moved = sendfile(out, in, &offset, chunk);
    if (moved < 0 && errno == EINTR) continue;
    if (moved < 0) return -errno;
    if (moved == 0) break;
    if (progress) progress(static_cast<std::uint64_t>(offset));
  }
  return offset;
}

std::string file_type(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

}  // namespace

core::Result<core::UniqueFd> NativeSession::open_inside(const std::string& path,
                                                        init::SessionOpenMode mode,
                                                        const std::string& target) {
  if (auto alive = check_alive(); !alive) return alive.error();
  auto packet = std::make_unique<init::SessionRequest>();
  packet->kind = init::SessionRequestKind::kOpen;
  packet->argc_or_mode = static_cast<std::int32_t>(mode);
  std::string data = path.empty() ? "." : path;
  data.push_back('\0');
  if (mode == init::SessionOpenMode::kMakeSymlink || mode == init::SessionOpenMode::kMakeHardLink) {
    data += target + '\0';
  }
  if (data.size() > init::kSessionDataMax)
    return core::Error{ENAMETOOLONG, "'" + path + "' is too long"};
  std::memcpy(packet->data, data.data(), data.size());
  packet->length = static_cast<std::uint32_t>(data.size());
  StartedSandbox& sandbox = launched_->sandbox;
  if (int error = init::send_packet(sandbox.channel.get(), packet.get(),
                                    init::kSessionHeaderSize + packet->length, nullptr, 0);
      error != 0) {
    return core::system_error("asking the session for '" + path + "'", error);
  }
  core::UniqueFd passed;
  auto opened = await_reply(init::ChildMessageKind::kOpened, &passed);
  if (!opened) return opened.error();
  if (opened->error != 0) return runtime::session_path_error(path, opened->error);
  if (!passed.valid()) return core::Error{EIO, "the session sent no file for '" + path + "'"};
  return passed;
}

core::Result<core::UniqueFd> NativeSession::open_to_read(const std::string& path,
                                                         std::uint64_t* size) {
  auto file = open_inside(path, init::SessionOpenMode::kRead);
  if (!file) return file.error();
  struct stat info {};
  if (fstat(file->get(), &info) != 0) return core::system_error("reading '" + path + "'");
  *size = static_cast<std::uint64_t>(info.st_size);
  return file;
}

core::Status NativeSession::write_file(const std::string& path, std::string_view content) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto file = open_inside(path, init::SessionOpenMode::kWrite);
  if (!file) return file.error();
  int error = core::write_all(file->get(), content);
  if (error == ENOSPC || error == EDQUOT) {
    return runtime::naming_setting(
        core::Error{error, "writing '" + path + "': the session's work directory is full (" +
                               core::format_size(shape_.limits.work_bytes) +
                               "); a larger one is the session disk size"},
        setting_names::kSessionDisk);
  }
  if (error != 0) return core::system_error("writing '" + path + "'", error);
  return {};
}

core::Status NativeSession::copy_in(const std::string& path, int source_fd, std::uint64_t size,
                                    bool executable) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto file = open_inside(
      path, executable ? init::SessionOpenMode::kWriteExecutable : init::SessionOpenMode::kWrite);
  if (!file) return file.error();
  // Holes stay holes: a sparse file takes in the work directory what it took where it came from
  // (a kept session's, restored into a tmpfs of the size it was saved from).
  auto copied = core::copy_file_data(source_fd, file->get(), size);
  if (!copied && (copied.error().code == ENOSPC || copied.error().code == EDQUOT)) {
    return runtime::naming_setting(
        core::Error{ENOSPC, "copying into '" + path + "': the session's work directory is full (" +
                                core::format_size(shape_.limits.work_bytes) +
                                "); a larger one is the session disk size"},
        setting_names::kSessionDisk);
  }
  if (!copied) return copied.error().context("copying into '" + path + "'");
  return {};
}

core::Result<std::uint64_t> NativeSession::copy_out(const std::string& path, int sink_fd,
                                                    std::uint64_t max_bytes,
                                                    const runtime::CopyProgress& progress) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  std::uint64_t size = 0;
  auto file = open_to_read(path, &size);
  if (!file) return file.error();
  if (size > max_bytes) return core::Error{EFBIG, "'" + path + "' is larger than the cap"};
  long long copied = copy_in_kernel(file->get(), sink_fd, size, progress);
  if (copied < 0)
    return core::system_error("copying '" + path + "' out", static_cast<int>(-copied));
  return static_cast<std::uint64_t>(copied);
}

core::Status NativeSession::make_directory(const std::string& path) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, init::SessionOpenMode::kMakeDirectory);
  return made ? core::Status{} : core::Status{made.error()};
}

core::Status NativeSession::make_symlink(const std::string& path, const std::string& target) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  if (target.empty() || target.find('\0') != std::string::npos || target.size() > 4096) {
    return core::invalid_input("the link '" + path + "' has no usable target");
  }
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, init::SessionOpenMode::kMakeSymlink, target);
  return made ? core::Status{} : core::Status{made.error()};
}

core::Status NativeSession::make_hard_link(const std::string& path, const std::string& existing) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  if (auto valid = runtime::check_session_path(existing); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, init::SessionOpenMode::kMakeHardLink, existing);
  return made ? core::Status{} : core::Status{made.error()};
}

core::Status NativeSession::walk_work_directory(const core::TreeVisitor& visit) {
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive;
  // What the sandbox user's mode bits keep from the server (a rootless server is not that user
  // when it has subordinate ids) is opened by init, as the sandbox user, beneath the work
  // directory.
  core::DeniedOpener denied = [this](const std::string& path, core::DeniedOpen how) {
    switch (how) {
      case core::DeniedOpen::kExamine:
        return open_inside(path, init::SessionOpenMode::kExamine);
      case core::DeniedOpen::kDirectory:
        return open_inside(path, init::SessionOpenMode::kDirectory);
      case core::DeniedOpen::kFile:
        break;
    }
    return open_inside(path, init::SessionOpenMode::kRead);
  };
  // Each folder level holds an fd while the walk is below it: a shallow cap keeps what one
  // session's nesting costs the server's fd budget small, with saves of several sessions at once.
  core::TreeWalkLimits limits;
  limits.max_depth = kWorkDirectoryDepth;
  return core::walk_tree(workdir_.get(), visit, denied, limits);
}

core::Result<runtime::FileContent> NativeSession::read_file(const std::string& path,
                                                            std::uint64_t max_bytes,
                                                            std::uint64_t offset) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  runtime::FileContent content;
  auto file = open_to_read(path, &content.size);
  if (!file) return file.error();
  std::uint64_t wanted = std::min(content.size - std::min(content.size, offset), max_bytes);
  content.data.resize(wanted);
  std::uint64_t got = 0;
  while (got < wanted) {
    ssize_t n = pread(file->get(), content.data.data() + got, wanted - got,
                      static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return core::system_error("reading '" + path + "'");
    if (n == 0) break;  // the file shrank meanwhile
    got += static_cast<std::uint64_t>(n);
  }
  content.data.resize(got);
  return content;
}

core::Result<std::vector<runtime::FileEntry>> NativeSession::list_files(const std::string& path,
                                                                        std::size_t max_entries) {
  if (auto valid = runtime::check_session_path(path, true); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  auto directory_fd = open_inside(path, init::SessionOpenMode::kDirectory);
  if (!directory_fd) return directory_fd.error();
  DIR* directory = fdopendir(directory_fd->release());
  if (directory == nullptr) return core::system_error("listing '" + path + "'");
  std::vector<runtime::FileEntry> entries;
  while (dirent* entry = readdir(directory)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat info {};
    runtime::FileEntry item{name, "other", 0};
    if (fstatat(dirfd(directory), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0) {
      item.type = file_type(info.st_mode);
      item.size = S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(info.st_size) : 0;
    }
    entries.push_back(std::move(item));
  }
  closedir(directory);
  std::sort(
      entries.begin(), entries.end(),
      [](const runtime::FileEntry& a, const runtime::FileEntry& b) { return a.name < b.name; });
  if (entries.size() > max_entries) entries.resize(max_entries);
  return entries;
}

}  // namespace paddock::native
