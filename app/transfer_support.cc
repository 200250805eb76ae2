#include "app/transfer_support.h"

#include <linux/openat2.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

#include "core/beneath.h"
#include "core/units.h"
#include "rootfs/image_reference.h"

namespace paddock::app {
namespace {

constexpr std::size_t kHashBlock = 1u << 20;

}  // namespace

FollowingHasher::FollowingHasher(int fd, std::uint64_t expected) : fd_(fd) {
  if (expected >= kHashInParallelFrom) thread_ = std::thread([this] { run(); });
}

void FollowingHasher::advance(std::uint64_t available) {
  {
    std::lock_guard lock(mutex_);
    available_ = std::max(available_, available);
  }
  changed_.notify_one();
}

core::Result<std::string> FollowingHasher::finish(std::uint64_t total) {
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
  if (error_ != 0) return core::system_error("reading the file back to hash it", error_);
  return rootfs::digest_hex(hasher_.digest());
}

void FollowingHasher::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    total_ = hashed_;
  }
  changed_.notify_one();
  thread_.join();
}

void FollowingHasher::run() {
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

core::Result<core::UniqueFd> open_no_symlinks(int directory, const std::string& path, int flags) {
  int fd = core::open_beneath(directory, path.c_str(), flags, RESOLVE_NO_SYMLINKS);
  if (fd < 0) return core::system_error("'" + path + "'", -fd);
  return core::UniqueFd(fd);
}

std::string cap_text(std::uint64_t bytes) {
  return core::format_size(bytes) + " (the server's --share-max-bytes)";
}

std::string last_component(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

}  // namespace paddock::app
