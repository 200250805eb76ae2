#include "runtime/native/artifacts.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "core/beneath.h"
#include "core/mime_types.h"
#include "core/unique_fd.h"
#include "runtime/artifact_choice.h"

namespace paddock::native {
namespace {

constexpr int kMaxDepth = 4;

// The program owns the work directory: no link it made and no mount is followed.
constexpr std::uint64_t kNoLinks = RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV;

// Files listed at most: a program that makes a million files cannot stall paddock.
constexpr std::size_t kMaxListed = 10000;

struct Lister {
  std::vector<runtime::ArtifactCandidate> found;
  std::size_t directory = 0;
  bool too_many = false;

  void walk(int listing_fd, const std::string& prefix, int depth) {
    DIR* dir = fdopendir(dup(listing_fd));
    if (dir == nullptr) return;
    std::vector<std::string> names;
    // Read no more names than could still be listed (and one to know there were more).
    std::size_t room = kMaxListed - std::min(kMaxListed, found.size()) + 1;
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
      if (names.size() >= room) break;
    }
    closedir(dir);
    for (const auto& name : names) {
      if (found.size() >= kMaxListed) {
        too_many = true;
        return;
      }
      struct stat info {};
      if (fstatat(listing_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
      std::string path = prefix + "/" + name;
      if (S_ISDIR(info.st_mode) && depth < kMaxDepth) {
        core::UniqueFd child(core::open_beneath(listing_fd, name.c_str(),
                                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW, kNoLinks));
        if (child.valid()) walk(child.get(), path, depth + 1);
      } else if (S_ISREG(info.st_mode)) {
        found.push_back(
            {path, directory,
             static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec,
             static_cast<std::uint64_t>(info.st_size)});
      }
    }
  }
};

// The file as it is now, at most `size` bytes (it may have grown since it was listed); nothing
// when it is no longer a regular file beneath the work directory.
std::optional<runtime::Artifact> read_artifact(int workdir_fd,
                                               const runtime::ArtifactCandidate& candidate) {
  core::UniqueFd file(core::open_beneath(workdir_fd, candidate.path.c_str(),
                                         O_RDONLY | O_NONBLOCK | O_NOFOLLOW, kNoLinks));
  struct stat info {};
  if (!file.valid() || fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return std::nullopt;
  }
  runtime::Artifact artifact{candidate.path, "", 0, std::string(), {}};
  artifact.data.resize(candidate.size);
  std::size_t done = 0;
  while (done < candidate.size) {
    ssize_t got = read(file.get(), artifact.data.data() + done, candidate.size - done);
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  artifact.data.resize(done);
  artifact.size = done;
  // Labelled after reading: a file with no known extension is text/plain if it reads as text.
  artifact.mime_type = core::mime_type_for(candidate.path, artifact.data);
  return artifact;
}

}  // namespace

CollectedArtifacts collect_artifacts(int workdir_fd, const runtime::OutputCollection& collection) {
  Lister lister;
  for (; lister.directory < collection.directories.size(); ++lister.directory) {
    const std::string& directory = collection.directories[lister.directory];
    core::UniqueFd root(core::open_beneath(workdir_fd, directory.c_str(),
                                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW, kNoLinks));
    if (root.valid()) lister.walk(root.get(), directory, 0);
  }
  runtime::ArtifactChoice choice = runtime::choose_artifacts(std::move(lister.found), collection);
  CollectedArtifacts collected;
  for (const auto& candidate : choice.taken) {
    if (auto artifact = read_artifact(workdir_fd, candidate)) {
      collected.artifacts.push_back(std::move(*artifact));
    }
  }
  collected.omitted = std::move(choice.omitted);
  if (lister.too_many) {
    collected.omitted.push_back(
        {"", 0, "more than " + std::to_string(kMaxListed) + " files: the rest were not listed"});
  }
  return collected;
}

}  // namespace paddock::native
