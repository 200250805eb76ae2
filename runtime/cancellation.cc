#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "runtime/backend.h"

namespace paddock::runtime {

CancellationToken::CancellationToken() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void CancellationToken::cancel() const {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(fd_.get(), &one, sizeof one);
}

bool CancellationToken::cancelled() const {
  pollfd entry{fd_.get(), POLLIN, 0};
  return poll(&entry, 1, 0) == 1;
}

}  // namespace paddock::runtime
