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
// The image's owners are applied when unpacking as root, and recorded in an xattr otherwise.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::rootfs {

// Where an unprivileged unpack records an image's owner of a file or directory: "uid:gid".
inline constexpr const char* kOwnerXattr = "user.paddock.owner";

struct UnpackLimits {
  std::uint64_t max_bytes = 16ull << 30;  // file content, all entries together
  std::uint64_t max_entries = 2'000'000;
};

// What the entries mean. The defaults are an image layer's; a workspace archive
// (state/workspace_archive.h) holds plain files of one user, so it turns the image's meanings off
// and gets the same confinement and limits (one unpacker, not two).
struct UnpackRules {
  // What the stream is called in messages: "layer entry 'x': ...".
  std::string_view what = "layer";
  // Said after a limit's figure: "layer exceeds 1000 bytes (decompression bomb?)".
  std::string_view limit_note = "decompression bomb?";
  // ".wh.*" entries are OCI whiteouts; without, they are plain names like any other.
  bool whiteouts = true;
  // The image's owners are applied or recorded; without, they are ignored (the files are the
  // unpacking user's).
  bool owners = true;
  // FIFOs are created; without, they are skipped and counted like devices.
  bool fifos = true;
  // The sticky bit is kept (an image's /tmp needs it); without, it is dropped like setuid.
  bool sticky = true;
  // The entries' permission bits are applied; without, everything is the unpacking user's and
  // private to it: directories 0700, files 0600 (0700 when the entry's owner may execute it).
  // A workspace archive lands in the state directory, whose folders and files must stay ones its
  // server can read and remove (a 0500 folder could not be emptied, a 0000 file not restored).
  bool modes = true;
  // The diff_id is computed; without, UnpackStats::diff_id stays empty (sha256 is a third of
  // the time an archive's import takes, and nothing checks an archive against a digest).
  bool diff_id = true;
};

struct UnpackStats {
  std::string diff_id;  // "sha256:<hex>" of the uncompressed stream (see UnpackRules::diff_id)
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  // What was made, by kind: regular files (hard links apart), hard links, directories, symlinks.
  std::uint64_t files = 0;
  std::uint64_t hardlinks = 0;
  std::uint64_t directories = 0;
  std::uint64_t symlinks = 0;
  std::uint64_t devices_skipped = 0;
  std::uint64_t fifos_skipped = 0;  // only without UnpackRules::fifos
  std::uint64_t sockets_skipped = 0;
  std::uint64_t setid_bits_dropped = 0;
  std::uint64_t sticky_bits_dropped = 0;  // only without UnpackRules::sticky
  // Entries owned by someone other than root in the image: their owner applied (unpacking as
  // root), recorded in the kOwnerXattr xattr (unpacking unprivileged), or neither (a symlink
  // or FIFO unpacked unprivileged: no user xattrs there).
  std::uint64_t owners_kept = 0;
  std::uint64_t owners_recorded = 0;
  std::uint64_t foreign_owners = 0;
};

// `blob_fd`: the layer blob, read from its current offset. `target_fd`: an empty directory.
// On error the target may hold part of the layer; the caller removes it (the store unpacks into
// a temporary directory and renames it into place only on success).
core::Result<UnpackStats> unpack_layer(int blob_fd, int target_fd, const UnpackLimits& limits = {},
                                       const UnpackRules& rules = {});

}  // namespace paddock::rootfs
