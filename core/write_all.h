#pragma once

// Writing a whole buffer to an fd: again after EINTR and after a short write.

#include <sys/types.h>

#include <string_view>

namespace paddock::core {

// Writes all of `bytes` to `fd`: 0, or the errno (EIO when a write wrote nothing). Calls write()
// and nothing else, so that a sandbox's init may use it after clone (runtime/native/init/child.cc).
int write_all(int fd, std::string_view bytes);

// The same at `offset`, with pwrite (the fd's own offset stays where it was).
int write_all_at(int fd, std::string_view bytes, off_t offset);

}  // namespace paddock::core
