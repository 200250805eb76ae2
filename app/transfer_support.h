#pragma once

// What an upload and a download (host_transfer.h) both use: a hash that follows a copy, opens
// that follow no symlink, and the words their refusals share.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/result.h"
#include "core/unique_fd.h"
#include "rootfs/sha256.h"

namespace paddock::app {

// Files this large are hashed on a thread of their own while they are copied, so a large copy
// costs about the longer of the two rather than their sum; smaller ones are not worth a thread.
inline constexpr std::uint64_t kHashInParallelFrom = 4u << 20;

// Hashes an fd's bytes from offset 0 as they become available (pread, so the copy's own
// offset is untouched and the bytes come from the page cache the copy just filled).
class FollowingHasher {
 public:
  FollowingHasher(int fd, std::uint64_t expected);
  ~FollowingHasher() { stop(); }
  FollowingHasher(const FollowingHasher&) = delete;
  FollowingHasher& operator=(const FollowingHasher&) = delete;

  void advance(std::uint64_t available);
  // The hex digest of the first `total` bytes.
  core::Result<std::string> finish(std::uint64_t total);

 private:
  void stop();
  void run();

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
core::Result<core::UniqueFd> open_no_symlinks(int directory, const std::string& path, int flags);

// A size cap as refusals name it: "1.0 GiB (the server's --share-max-bytes)".
std::string cap_text(std::uint64_t bytes);

// The last component of a relative path.
std::string last_component(const std::string& path);

}  // namespace paddock::app
