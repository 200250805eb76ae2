#pragma once

// openat2 confined beneath a directory: the kernel, not string checks, keeps a lookup from
// leaving it through "..", an absolute path, a symlink or a /proc magic link.

#include <sys/types.h>

#include <cstdint>

namespace paddock::core {

// openat2(directory, path, flags | O_CLOEXEC (| O_NOCTTY unless O_PATH), `mode` when O_CREAT)
// with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | `resolve`. Retries the EAGAIN a concurrent
// rename can cause. An fd, or -errno (EXDEV: it would have left `directory`). A system call and
// nothing else, so a sandbox's init may call it too (runtime/native/init/session_init.cc).
int open_beneath(int directory, const char* path, int flags, std::uint64_t resolve = 0,
                 mode_t mode = 0644);

// The same with `directory` as "/" instead (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
// `resolve`): "..", absolute names and symlinks all stay inside it, as in a chroot. For a tree
// whose own symlinks must resolve as they would inside it (an image's layers).
int open_in_root(int directory, const char* path, int flags, std::uint64_t resolve = 0,
                 mode_t mode = 0644);

}  // namespace paddock::core
