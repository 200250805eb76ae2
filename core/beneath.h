#pragma once

// openat2 confined beneath a directory: the kernel, not string checks, keeps a lookup from
// leaving it through "..", an absolute path, a symlink or a /proc magic link.

#include <sys/types.h>

#include <cstdint>

namespace paddock {

// openat2(directory, path, flags | O_CLOEXEC (| O_NOCTTY unless O_PATH), `mode` when O_CREAT)
// with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | `resolve`. Retries the EAGAIN a concurrent
// rename can cause. An fd, or -errno (EXDEV: it would have left `directory`). A system call and
// nothing else, so a sandbox's init may call it too (runtime/native/session_init.cc).
int open_beneath(int directory, const char* path, int flags, std::uint64_t resolve = 0,
                 mode_t mode = 0644);

}  // namespace paddock
