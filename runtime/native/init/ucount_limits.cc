#include "runtime/native/init/ucount_limits.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iterator>

#include "runtime/shared_budgets.h"

namespace paddock::init {

int apply_ucount_limits(int* failed) {
  *failed = -1;
  int user_dir = open("/proc/sys/user", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (user_dir < 0) return errno;
  int error = 0;
  for (std::size_t i = 0; i < std::size(runtime::kSandboxUcountLimits) && error == 0; ++i) {
    char text[16];
    int length = std::snprintf(text, sizeof text, "%d\n", runtime::kSandboxUcountLimits[i].value);
    int fd = openat(user_dir, runtime::kSandboxUcountLimits[i].file, O_WRONLY | O_CLOEXEC);
    // A kernel without this limit (fanotify's came in 5.13) has nothing of it to share.
    if (fd < 0 && errno == ENOENT) continue;
    if (fd < 0) {
      error = errno;
    } else {
      ssize_t written = write(fd, text, static_cast<std::size_t>(length));
      if (written != length) error = written < 0 ? errno : EIO;
      close(fd);
    }
    if (error != 0) *failed = static_cast<int>(i);
  }
  close(user_dir);
  return error;
}

}  // namespace paddock::init
