#include "runtime/native/artifacts.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "core/mime_types.h"
#include "core/unique_fd.h"

namespace paddock {
namespace {

constexpr int kMaxDepth = 4;

UniqueFd open_beneath(int directory, const std::string& path, std::uint64_t flags) {
  open_how how{};
  how.flags = flags | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  return UniqueFd(
      static_cast<int>(syscall(SYS_openat2, directory, path.c_str(), &how, sizeof how)));
}

struct Collector {
  const OutputCollection& limits;
  std::vector<Artifact> found;
  std::uint64_t bytes = 0;
  bool truncated = false;

  void take_file(int directory, const std::string& name, const std::string& path) {
    if (found.size() >= limits.max_files) {
      truncated = true;
      return;
    }
    UniqueFd file = open_beneath(directory, name, O_RDONLY | O_NONBLOCK);
    struct stat info {};
    if (!file.valid() || fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return;
    auto size = static_cast<std::uint64_t>(info.st_size);
    if (bytes + size > limits.max_bytes) {
      truncated = true;
      return;
    }
    Artifact artifact{path, "", size, std::string(), {}};
    artifact.data.resize(size);
    std::size_t done = 0;
    while (done < size) {
      ssize_t got = read(file.get(), artifact.data.data() + done, size - done);
      if (got <= 0) break;
      done += static_cast<std::size_t>(got);
    }
    artifact.data.resize(done);
    artifact.size = done;
    // Labelled after reading: a file with no known extension is text/plain if it reads as text.
    artifact.mime_type = mime_type_for(path, artifact.data);
    bytes += done;
    found.push_back(std::move(artifact));
  }

  void walk(int directory, const std::string& prefix, int depth) {
    UniqueFd listing = open_beneath(directory, ".", O_RDONLY | O_DIRECTORY);
    if (!listing.valid()) return;
    DIR* dir = fdopendir(dup(listing.get()));
    if (dir == nullptr) return;
    std::vector<std::pair<std::string, unsigned char>> entries;
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") entries.emplace_back(name, entry->d_type);
    }
    closedir(dir);
    std::sort(entries.begin(), entries.end());
    for (const auto& [name, type] : entries) {
      std::string path = prefix + "/" + name;
      if (type == DT_DIR && depth < kMaxDepth) {
        UniqueFd child = open_beneath(listing.get(), name, O_PATH | O_DIRECTORY);
        if (child.valid()) walk(child.get(), path, depth + 1);
      } else if (type == DT_REG) {
        take_file(listing.get(), name, path);
      }
    }
  }
};

}  // namespace

std::vector<Artifact> collect_artifacts(int workdir_fd, const OutputCollection& collection,
                                        bool* truncated) {
  Collector collector{collection, {}, 0, false};
  for (const auto& directory : collection.directories) {
    UniqueFd root = open_beneath(workdir_fd, directory, O_PATH | O_DIRECTORY);
    if (root.valid()) collector.walk(root.get(), directory, 0);
  }
  if (truncated != nullptr) *truncated = collector.truncated;
  return std::move(collector.found);
}

}  // namespace paddock
