#include "core/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace paddock::core {

namespace {

// openat2 with exactly `resolve`, again after the EAGAIN a concurrent rename can cause.
int openat2_retrying(int directory, const char* path, int flags, std::uint64_t resolve,
                     mode_t mode) {
  open_how how{};
  // openat2 refuses O_PATH with anything but O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC.
  how.flags = static_cast<std::uint64_t>(flags) | O_CLOEXEC |
              ((flags & O_PATH) != 0 ? 0 : static_cast<std::uint64_t>(O_NOCTTY));
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = resolve;
  for (int attempt = 0;; ++attempt) {
    long fd = syscall(SYS_openat2, directory, path, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a rename elsewhere raced the ".." check; the kernel asks to try again.
    if ((errno == EAGAIN || errno == EINTR) && attempt < 16) continue;
    return -errno;
  }
}

}  // namespace

int open_beneath(int directory, const char* path, int flags, std::uint64_t resolve, mode_t mode) {
  return openat2_retrying(directory, path, flags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | resolve,
                          mode);
}

int open_in_root(int directory, const char* path, int flags, std::uint64_t resolve, mode_t mode) {
  return openat2_retrying(directory, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve,
                          mode);
}

}  // namespace paddock::core
