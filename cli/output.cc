#include "cli/output.h"

#include <unistd.h>

#include <cerrno>

namespace paddock::cli {

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t written = write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // our reader went away; keep supervising regardless
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

int fail(const std::string& message) {
  write_all(STDERR_FILENO, "paddock: " + message + "\n");
  return kPaddockFailure;
}

void note(const std::string& message) {
  write_all(STDERR_FILENO, "paddock: " + message + "\n");
}

}  // namespace paddock::cli
