// A saved workspace's own files on disk: its folders, its small files written atomically, its
// lock and the link to its current generation.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "core/beneath.h"
#include "core/write_all.h"
#include "state/workspace_parts.h"

namespace paddock::state {
namespace workspace_parts {

std::string generation_name(std::uint64_t generation) {
  return "gen-" + std::to_string(generation);
}

// The directory that holds `path` inside the tree `root_fd`, by a lookup that follows no
// symlink: the copies on disk hold the sandbox's symlinks, which must never be followed here.
core::Result<core::UniqueFd> parent_of(int root_fd, const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) {
    int fd = dup(root_fd);
    if (fd < 0) return core::system_error("duplicating a directory");
    return core::UniqueFd(fd);
  }
  std::string parent = path.substr(0, slash);
  int fd = core::open_beneath(root_fd, parent.c_str(), O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
  if (fd < 0) return core::system_error("opening the folder of " + path, -fd);
  return core::UniqueFd(fd);
}

core::Result<core::UniqueFd> open_directory(int parent, const std::string& name) {
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return core::system_error("opening " + name);
  return core::UniqueFd(fd);
}

core::Status make_directory(int parent, const std::string& name) {
  if (mkdirat(parent, name.c_str(), 0700) != 0) return core::system_error("making " + name);
  return {};
}

// Writes `text` as `name` of `dir` atomically (a temporary file renamed over it).
core::Status write_atomically(int dir, const std::string& name, const std::string& text) {
  std::string temporary = name + ".tmp";
  core::UniqueFd file(
      openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid()) return core::system_error("writing " + name);
  if (int error = core::write_all(file.get(), text); error != 0) {
    return core::system_error("writing " + name, error);
  }
  if (renameat(dir, temporary.c_str(), dir, name.c_str()) != 0) {
    return core::system_error("writing " + name);
  }
  return {};
}

core::Result<std::string> read_small(int dir, const std::string& name) {
  core::UniqueFd file(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!file.valid()) return core::system_error("reading " + name);
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(file.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return core::system_error("reading " + name);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > (256u << 20)) return core::Error{EFBIG, name + " is too large"};
  }
  return text;
}

json info_json(const WorkspaceInfo& info) {
  return {{"id", info.id},
          {"name", info.name},
          {"language", info.language},
          {"created_at", info.created_at},
          {"last_used", info.last_used},
          {"live", info.live},
          {"bytes", info.bytes},
          {"used_bytes", info.used_bytes},
          {"files", info.files},
          {"allowed_by_user", info.allowed_by_user}};
}

core::Result<WorkspaceInfo> read_info(int dir) {
  auto text = read_small(dir, "meta.json");
  if (!text) return text.error();
  try {
    json meta = json::parse(*text);
    WorkspaceInfo info;
    info.id = meta.at("id").get<std::string>();
    info.name = meta.value("name", "");
    info.language = meta.at("language").get<std::string>();
    info.created_at = meta.value("created_at", "");
    info.last_used = meta.value("last_used", std::int64_t{0});
    info.live = meta.value("live", false);
    info.bytes = meta.value("bytes", std::uint64_t{0});
    info.used_bytes = meta.value("used_bytes", info.bytes);
    info.files = meta.value("files", std::uint64_t{0});
    info.allowed_by_user = meta.value("allowed_by_user", std::vector<std::string>{});
    return info;
  } catch (const json::exception& error) {
    return core::Error{EINVAL, std::string("meta.json is not paddock's: ") + error.what()};
  }
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

core::Result<core::UniqueFd> lock_file(int dir) {
  core::UniqueFd lock(openat(dir, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.valid()) return core::system_error("opening the lock");
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return core::Error{EBUSY,
                         "it is open in another paddock server that uses the same state directory"};
    }
    return core::system_error("locking");
  }
  return lock;
}

// Makes a generation current: its files are on disk first, then the link to it.
core::Status make_current(int dir, std::uint64_t generation) {
  if (syncfs(dir) != 0) return core::system_error("syncing the workspace");
  std::string temporary = std::string(kCurrent) + ".tmp";
  unlinkat(dir, temporary.c_str(), 0);
  if (symlinkat(generation_name(generation).c_str(), dir, temporary.c_str()) != 0 ||
      renameat(dir, temporary.c_str(), dir, kCurrent) != 0) {
    return core::system_error("switching to the new generation");
  }
  if (fsync(dir) != 0) return core::system_error("syncing the workspace");
  return {};
}

}  // namespace workspace_parts

std::uint64_t generation_of(const std::string& link_target) {
  if (link_target.rfind("gen-", 0) != 0) return 0;
  std::uint64_t value = 0;
  for (char c : link_target.substr(4)) {
    if (c < '0' || c > '9' || value > (1ull << 50)) return 0;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

}  // namespace paddock::state
