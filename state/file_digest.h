#pragma once

// What a file holds, as one 128-bit XXH3 (xxhash, rsync's checksum for the same question): the
// test a save uses for "unchanged". Metadata cannot be that test: a write through a shared
// mapping of a tmpfs file (numpy.memmap, LMDB, sqlite in mmap mode) changes neither its size nor
// its ctime nor its mtime once the page is mapped writable, so only the bytes tell. Not a
// cryptographic hash, and it need not be: a program that made its own file collide would only
// lose its own write, and an accidental collision of 128 bits does not happen. At memory speed
// (about 10x SHA-256 here), a save can afford to read every file.

#include <cstdint>
#include <string>

#include "core/result.h"

namespace paddock::state {

// The digest of the first `size` bytes of the regular file `fd` (read with pread: its offset is
// left alone). Holes and pages of zeros count the same, so a sparse file and its copy agree
// whichever of them the file system stored as a hole, and a hole costs no reading.
core::Result<std::string> file_digest(int fd, std::uint64_t size);

}  // namespace paddock::state
