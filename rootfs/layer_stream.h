#pragma once

// A layer blob as the stream the unpacker reads (layer_unpacker.cc): the blob, decompressed by
// one libarchive reader and handed to a second, the tar reader, through a Pump that hashes every
// uncompressed byte exactly once on the way (the diff_id) and stops a decompression bomb.

#include <archive.h>
#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace paddock::rootfs {

struct ArchiveReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchiveReader = std::unique_ptr<archive, ArchiveReadFree>;

struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Digest = std::unique_ptr<EVP_MD_CTX, DigestFree>;

// What libarchive says went wrong, with its errno (EIO when it gives none).
core::Error archive_failure(archive* a, std::string_view what);

// The blob, read from the caller's fd at its current offset (archive_read_open_fd would do, but
// could not tell an empty blob from any other unrecognised one).
struct BlobSource {
  int fd = -1;
  std::string what;  // "layer", "archive": for messages
  std::vector<char> buffer;
  std::uint64_t bytes = 0;
  std::optional<core::Error> failure;

  // libarchive's read callback.
  static la_ssize_t read(archive* outer, void* client, const void** block);
};

// Hands the outer reader's decompressed blocks to the inner tar reader, hashing each exactly
// once on the way: the digest is of the whole uncompressed stream, which is the diff_id.
struct Pump {
  std::string what;  // "layer", "archive": for messages
  archive* outer = nullptr;
  EVP_MD_CTX* digest = nullptr;  // none: nothing is hashed
  std::uint64_t bytes = 0;
  std::uint64_t limit = 0;
  bool eof = false;
  std::optional<core::Error> failure;

  // One more block, or an empty span at the end of the stream; the block stays valid until the
  // next call (libarchive's contract for read callbacks, which the inner reader relies on).
  core::Result<std::span<const char>> next();

  // libarchive's read callback, for the inner (tar) reader.
  static la_ssize_t read(archive* inner, void* client, const void** buffer);
};

// The whole stream, opened: a blob as tar entries.
class LayerStream {
 public:
  // The blob read from `blob_fd`'s current offset, gzip, zstd or uncompressed, as a tar reader
  // over at most `uncompressed_limit` bytes of uncompressed stream. `what` names the blob in
  // messages; without `hash`, no diff_id is computed.
  static core::Result<std::unique_ptr<LayerStream>> open(int blob_fd,
                                                         std::uint64_t uncompressed_limit,
                                                         std::string_view what = "layer",
                                                         bool hash = true);
  LayerStream(const LayerStream&) = delete;
  LayerStream& operator=(const LayerStream&) = delete;

  // The tar reader, for archive_read_next_header and archive_read_data_block.
  [[nodiscard]] archive* tar() const { return inner_.get(); }
  // The failure of the stream beneath the tar reader, once one happened.
  [[nodiscard]] const std::optional<core::Error>& failure() const { return pump_.failure; }
  // Reads what follows the tar's end-of-archive blocks (zero padding, usually: still part of the
  // uncompressed stream), and returns the stream's diff_id, "sha256:<hex>" (empty when opened
  // without hashing).
  core::Result<std::string> finish();

 private:
  LayerStream() = default;
  ArchiveReader outer_;
  ArchiveReader inner_;
  Digest digest_;
  BlobSource source_;
  Pump pump_;
};

}  // namespace paddock::rootfs
