#pragma once

// Unpacks one image layer (a tar stream: gzip, zstd or uncompressed, detected) into an empty
// directory that then serves as an overlayfs lower layer, and computes the layer's diff_id (the
// sha256 of the uncompressed tar) on the way, with one decompression.
//
// The archive is hostile until proven otherwise: every path is resolved inside the target
// (openat2 RESOLVE_IN_ROOT), so "..", absolute names, symlinks and hardlinks cannot reach
// outside it; device nodes are skipped; setuid and setgid bits are dropped; total bytes and
// entries are capped against decompression bombs. Whiteouts become what overlayfs reads in a
// user namespace: ".wh.NAME" a 0/0 character device NAME (which needs no privilege), and
// ".wh..wh..opq" the xattr user.overlay.opaque=y on its directory (mount with userxattr).
// Ownership stays the unpacking user's; the image's owners are counted, not applied.

#include <cstdint>
#include <string>

#include "core/result.h"

namespace paddock::rootfs {

struct UnpackLimits {
  std::uint64_t max_bytes = 16ull << 30;  // file content, all entries together
  std::uint64_t max_entries = 2'000'000;
};

struct UnpackStats {
  std::string diff_id;  // "sha256:<hex>" of the uncompressed stream
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  std::uint64_t devices_skipped = 0;
  std::uint64_t setid_bits_dropped = 0;
  std::uint64_t foreign_owners = 0;  // entries whose owner was not applied
};

// `blob_fd`: the layer blob, read from its current offset. `target_fd`: an empty directory.
// On error the target may hold part of the layer; the caller removes it (the store unpacks into
// a temporary directory and renames it into place only on success).
Result<UnpackStats> unpack_layer(int blob_fd, int target_fd, const UnpackLimits& limits = {});

}  // namespace paddock::rootfs
