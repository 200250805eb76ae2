#include "rootfs/layer_stream.h"

#include <unistd.h>

#include <cerrno>

namespace paddock::rootfs {
namespace {

std::string archive_message(archive* a) {
  const char* message = archive_error_string(a);
  return message != nullptr ? message : "unknown libarchive error";
}

constexpr std::size_t kBlobBlockSize = 64 * 1024;

std::string hex(std::span<const unsigned char> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

}  // namespace

core::Error archive_failure(archive* a, std::string_view what) {
  int code = archive_errno(a);
  return core::Error{code > 0 ? code : EIO, std::string(what) + ": " + archive_message(a)};
}

la_ssize_t BlobSource::read(archive* outer, void* client, const void** block) {
  auto* source = static_cast<BlobSource*>(client);
  for (;;) {
    ssize_t n = ::read(source->fd, source->buffer.data(), source->buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      source->failure = core::system_error("reading the " + source->what);
      archive_set_error(outer, source->failure->code, "%s", source->failure->message.c_str());
      return -1;
    }
    source->bytes += static_cast<std::uint64_t>(n);
    *block = source->buffer.data();
    return n;
  }
}

core::Result<std::span<const char>> Pump::next() {
  while (!eof) {
    const void* block = nullptr;
    std::size_t size = 0;
    la_int64_t offset = 0;
    int r = archive_read_data_block(outer, &block, &size, &offset);
    if (r == ARCHIVE_EOF) {
      eof = true;
      break;
    }
    if (r < ARCHIVE_WARN) return archive_failure(outer, "decompressing the " + what);
    if (size == 0) continue;
    if (offset < 0 || static_cast<std::uint64_t>(offset) != bytes) {
      return core::Error{EIO, "decompressing the " + what + ": the stream has holes"};
    }
    if (size > limit - bytes) {
      return core::Error{EFBIG, what + " exceeds " + std::to_string(limit) +
                                    " bytes uncompressed (decompression bomb?)"};
    }
    bytes += size;
    if (digest != nullptr && EVP_DigestUpdate(digest, block, size) != 1) {
      return core::Error{EIO, "hashing the " + what};
    }
    return std::span<const char>(static_cast<const char*>(block), size);
  }
  return std::span<const char>();
}

la_ssize_t Pump::read(archive* inner, void* client, const void** buffer) {
  auto* pump = static_cast<Pump*>(client);
  auto block = pump->next();
  if (!block.ok()) {
    pump->failure = block.error();
    archive_set_error(inner, block.error().code, "%s", block.error().message.c_str());
    return -1;
  }
  *buffer = block->data();
  return static_cast<la_ssize_t>(block->size());
}

core::Result<std::unique_ptr<LayerStream>> LayerStream::open(int blob_fd,
                                                             std::uint64_t uncompressed_limit,
                                                             std::string_view what, bool hash) {
  std::unique_ptr<LayerStream> stream(new LayerStream());
  // The outer reader only decompresses: the raw format hands over the bytes as one entry.
  // gzip and zstd are what OCI layers use; archive_read_support_filter_all would add filters
  // (lrzip, lzop, grzip) that run external programs on hostile input, so they stay out.
  // Uncompressed input passes through libarchive's implicit "none" filter.
  stream->outer_.reset(archive_read_new());
  archive* outer = stream->outer_.get();
  if (outer == nullptr) return core::Error{ENOMEM, "allocating an archive reader"};
  if (archive_read_support_filter_gzip(outer) != ARCHIVE_OK ||
      archive_read_support_filter_zstd(outer) != ARCHIVE_OK ||
      archive_read_support_format_raw(outer) != ARCHIVE_OK) {
    return archive_failure(outer, "setting up decompression");
  }
  BlobSource& source = stream->source_;
  source.fd = blob_fd;
  source.what = what;
  source.buffer.resize(kBlobBlockSize);
  // Opening already reads ahead to detect the compression; the raw format bids only on at least
  // one byte, so an empty blob fails here (or at the first header).
  archive_entry* whole = nullptr;
  if (archive_read_open(outer, &source, nullptr, &BlobSource::read, nullptr) != ARCHIVE_OK ||
      archive_read_next_header(outer, &whole) != ARCHIVE_OK) {
    if (source.failure) return *source.failure;
    if (source.bytes == 0)
      return core::Error{EINVAL, "reading the " + source.what + ": it is empty"};
    return archive_failure(outer, "reading the " + source.what);
  }

  if (hash) {
    stream->digest_.reset(EVP_MD_CTX_new());
    if (!stream->digest_ || EVP_DigestInit_ex(stream->digest_.get(), EVP_sha256(), nullptr) != 1) {
      return core::Error{ENOMEM, "setting up sha256"};
    }
  }
  Pump& pump = stream->pump_;
  pump.what = what;
  pump.outer = outer;
  pump.digest = stream->digest_.get();
  pump.limit = uncompressed_limit;

  // The inner reader sees the uncompressed stream, so it needs no filter; tar covers ustar, pax
  // and GNU.
  stream->inner_.reset(archive_read_new());
  archive* inner = stream->inner_.get();
  if (inner == nullptr) return core::Error{ENOMEM, "allocating an archive reader"};
  if (archive_read_support_format_tar(inner) != ARCHIVE_OK) {
    return archive_failure(inner, "setting up the tar reader");
  }
  if (archive_read_open(inner, &pump, nullptr, &Pump::read, nullptr) != ARCHIVE_OK) {
    if (pump.failure) return *pump.failure;
    return archive_failure(inner, "reading the " + pump.what + " as tar");
  }
  return stream;
}

core::Result<std::string> LayerStream::finish() {
  // The tar ends at its end-of-archive blocks; whatever follows is part of the blob's
  // uncompressed stream and so of the diff_id.
  for (;;) {
    auto block = pump_.next();
    if (!block.ok()) return block.error();
    if (block->empty()) break;
  }
  if (!digest_) return std::string();
  unsigned char sum[EVP_MAX_MD_SIZE];
  unsigned int sum_size = 0;
  if (EVP_DigestFinal_ex(digest_.get(), sum, &sum_size) != 1) {
    return core::Error{EIO, "hashing the " + pump_.what};
  }
  return "sha256:" + hex(std::span<const unsigned char>(sum, sum_size));
}

}  // namespace paddock::rootfs
