#include "core/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace paddock::core {

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t wrote = write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return wrote < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

int write_all_at(int fd, std::string_view bytes, off_t offset) {
  while (!bytes.empty()) {
    ssize_t wrote = pwrite(fd, bytes.data(), bytes.size(), offset);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return wrote < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
    offset += wrote;
  }
  return 0;
}

}  // namespace paddock::core
