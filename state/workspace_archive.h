#pragma once

// A workspace as one file and back: a zstd-compressed POSIX (pax) tar, written and read through
// libarchive (export_session, create_session {from_archive}).
//
// What an archive holds: regular files (sparse ones stay sparse), directories, symlinks (as links,
// whatever they point at) and hard links (as tar hard links, so one inode stays one inode); each
// with its permission bits and mtime, owned by 1000:1000. Nothing else: no devices, FIFOs or
// sockets, no xattrs or ACLs, no host owners or names.
//
// An archive to import comes from a share, so it is hostile: it is unpacked by the image layers'
// unpacker (rootfs/layer_unpacker.h) with the image-only meanings turned off. Every name resolves
// inside the target (openat2 RESOLVE_IN_ROOT), so "..", absolute names, symlinks and hard links
// never reach or write outside it; devices, FIFOs and sockets are skipped (counted); setuid,
// setgid and sticky bits are dropped; owners are ignored (the files are the importing user's);
// ".wh.*" names are plain files (whiteouts mean something in image layers only); file content and
// entries are capped against bombs.

#include <cstdint>

#include "core/result.h"

namespace paddock::state {

struct ArchiveLimits {
  // File content, all files together, counted from the headers before a byte is written.
  std::uint64_t max_bytes = 4ull << 30;
  // Entries of any kind, skipped ones included.
  std::uint64_t max_entries = 1'000'000;
};

struct ArchiveStats {
  std::uint64_t files = 0;  // regular files, each hard link included
  std::uint64_t directories = 0;
  std::uint64_t symlinks = 0;
  std::uint64_t bytes = 0;    // file content (a sparse file's full size), each inode once
  std::uint64_t skipped = 0;  // devices, FIFOs and sockets
};

// Writes the tree under the directory `tree_fd` (not the directory itself) to `out_fd`, as
// above. The walk never follows a symlink: each name is opened with openat and O_NOFOLLOW from
// its parent's fd, and checked to be what was listed, so even a tree changed underneath cannot
// lead it outside. Names of PATH_MAX bytes or more are refused (no import would take them).
// Each directory's files and symlinks come in name order, then its subdirectories, each followed
// by what it holds, so the same tree gives the same archive.
core::Result<ArchiveStats> export_tree(int tree_fd, int out_fd);

// Unpacks the archive read from `archive_fd` (its current offset; .tar.zst, .tar.gz or .tar,
// detected) into `target_fd`, which must be an empty directory, as above. The first bad entry
// stops the import with one line naming it, or naming the limit that was hit; the target is then
// emptied again. Directories keep their modes, even ones without write access for their owner.
core::Result<ArchiveStats> import_tree(int archive_fd, int target_fd,
                                       const ArchiveLimits& limits = {});

}  // namespace paddock::state
