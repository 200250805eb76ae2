#include "support/layer_builder.h"

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>
#include <utility>

namespace paddock::testing {
namespace {

// Test support: a failure to build a fixture is a broken test, so it throws and gtest reports it.
[[noreturn]] void fail(archive* a, const std::string& what) {
  const char* message = a != nullptr ? archive_error_string(a) : nullptr;
  throw std::runtime_error(what + ": " + (message != nullptr ? message : "failed"));
}

struct ArchiveWriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
using ArchiveWriter = std::unique_ptr<archive, ArchiveWriteFree>;

struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using EntryPtr = std::unique_ptr<archive_entry, EntryFree>;

la_ssize_t append_to_string(archive*, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

// A writer of `format` that appends everything, compressed, to `out`.
ArchiveWriter open_writer(std::string* out, Compression compression, bool raw) {
  ArchiveWriter writer(archive_write_new());
  if (!writer) throw std::runtime_error("archive_write_new failed");
  int r = raw ? archive_write_set_format_raw(writer.get())
              : archive_write_set_format_pax_restricted(writer.get());
  if (r != ARCHIVE_OK) fail(writer.get(), "setting the format");
  switch (compression) {
    case Compression::kNone:
      r = archive_write_add_filter_none(writer.get());
      break;
    case Compression::kGzip:
      r = archive_write_add_filter_gzip(writer.get());
      break;
    case Compression::kZstd:
      r = archive_write_add_filter_zstd(writer.get());
      break;
  }
  if (r != ARCHIVE_OK) fail(writer.get(), "adding the filter");
  // No padding of the last block to 10 KiB: the bytes written are the tar, nothing more.
  if (archive_write_set_bytes_in_last_block(writer.get(), 1) != ARCHIVE_OK) {
    fail(writer.get(), "setting the last block");
  }
  if (archive_write_open(writer.get(), out, nullptr, append_to_string, nullptr) != ARCHIVE_OK) {
    fail(writer.get(), "opening the writer");
  }
  return writer;
}

void write_data(archive* writer, const char* data, std::size_t size) {
  while (size > 0) {
    la_ssize_t n = archive_write_data(writer, data, size);
    if (n <= 0) fail(writer, "writing data");
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void write_zeros(archive* writer, std::uint64_t count) {
  static const std::string kZeros(1 << 20, '\0');
  while (count > 0) {
    std::size_t chunk = count < kZeros.size() ? static_cast<std::size_t>(count) : kZeros.size();
    write_data(writer, kZeros.data(), chunk);
    count -= chunk;
  }
}

void close_writer(archive* writer) {
  if (archive_write_close(writer) != ARCHIVE_OK) fail(writer, "closing the writer");
}

}  // namespace

LayerBuilder& LayerBuilder::add(Entry entry) {
  entries_.push_back(std::move(entry));
  return *this;
}

namespace {

LayerBuilder::Entry make_entry(LayerBuilder::Entry::Type type, std::string name, mode_t mode,
                               std::string content = {}) {
  LayerBuilder::Entry entry;
  entry.type = type;
  entry.name = std::move(name);
  entry.mode = mode;
  entry.content = std::move(content);
  return entry;
}

}  // namespace

LayerBuilder& LayerBuilder::file(std::string name, std::string content, mode_t mode) {
  return add(make_entry(Entry::Type::kFile, std::move(name), mode, std::move(content)));
}

LayerBuilder& LayerBuilder::dir(std::string name, mode_t mode) {
  return add(make_entry(Entry::Type::kDir, std::move(name), mode));
}

LayerBuilder& LayerBuilder::symlink(std::string name, std::string target) {
  return add(make_entry(Entry::Type::kSymlink, std::move(name), 0777, std::move(target)));
}

LayerBuilder& LayerBuilder::hardlink(std::string name, std::string target) {
  return add(make_entry(Entry::Type::kHardlink, std::move(name), 0644, std::move(target)));
}

LayerBuilder& LayerBuilder::char_device(std::string name, unsigned major, unsigned minor) {
  Entry entry = make_entry(Entry::Type::kCharDevice, std::move(name), 0666);
  entry.dev_major = major;
  entry.dev_minor = minor;
  return add(std::move(entry));
}

LayerBuilder& LayerBuilder::block_device(std::string name, unsigned major, unsigned minor) {
  Entry entry = make_entry(Entry::Type::kBlockDevice, std::move(name), 0660);
  entry.dev_major = major;
  entry.dev_minor = minor;
  return add(std::move(entry));
}

LayerBuilder& LayerBuilder::fifo(std::string name, mode_t mode) {
  return add(make_entry(Entry::Type::kFifo, std::move(name), mode));
}

LayerBuilder& LayerBuilder::whiteout(std::string_view name) {
  std::size_t slash = name.rfind('/');
  std::string dir = slash == std::string_view::npos ? "" : std::string(name.substr(0, slash + 1));
  std::string base(slash == std::string_view::npos ? name : name.substr(slash + 1));
  return file(dir + ".wh." + base, "", 0000);
}

LayerBuilder& LayerBuilder::opaque(std::string_view dir) {
  return file(std::string(dir) + "/.wh..wh..opq", "", 0000);
}

LayerBuilder& LayerBuilder::owned_by(std::int64_t uid, std::int64_t gid) {
  entries_.back().uid = uid;
  entries_.back().gid = gid;
  return *this;
}

std::string LayerBuilder::tar() const {
  return layer(Compression::kNone);
}

std::string LayerBuilder::layer(Compression compression) const {
  std::string out;
  ArchiveWriter writer = open_writer(&out, compression, false);
  for (const auto& entry : entries_) {
    EntryPtr e(archive_entry_new());
    archive_entry_copy_pathname(e.get(), entry.name.c_str());
    archive_entry_set_perm(e.get(), entry.mode);
    archive_entry_set_uid(e.get(), entry.uid);
    archive_entry_set_gid(e.get(), entry.gid);
    archive_entry_set_mtime(e.get(), entry.mtime, 0);
    using Type = Entry::Type;
    switch (entry.type) {
      case Type::kFile:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_size(e.get(), static_cast<la_int64_t>(entry.content.size()));
        break;
      case Type::kDir:
        archive_entry_set_filetype(e.get(), AE_IFDIR);
        break;
      case Type::kSymlink:
        archive_entry_set_filetype(e.get(), AE_IFLNK);
        archive_entry_copy_symlink(e.get(), entry.content.c_str());
        break;
      case Type::kHardlink:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_copy_hardlink(e.get(), entry.content.c_str());
        break;
      case Type::kCharDevice:
      case Type::kBlockDevice:
        archive_entry_set_filetype(e.get(), entry.type == Type::kCharDevice ? AE_IFCHR : AE_IFBLK);
        archive_entry_set_rdevmajor(e.get(), entry.dev_major);
        archive_entry_set_rdevminor(e.get(), entry.dev_minor);
        break;
      case Type::kFifo:
        archive_entry_set_filetype(e.get(), AE_IFIFO);
        break;
    }
    if (archive_write_header(writer.get(), e.get()) < ARCHIVE_WARN) {
      fail(writer.get(), "writing the header of " + entry.name);
    }
    if (entry.type == Type::kFile) {
      write_data(writer.get(), entry.content.data(), entry.content.size());
    }
  }
  close_writer(writer.get());
  return out;
}

std::string compress(std::string_view data, Compression compression, std::uint64_t trailing_zeros) {
  std::string out;
  ArchiveWriter writer = open_writer(&out, compression, true);
  EntryPtr e(archive_entry_new());
  archive_entry_copy_pathname(e.get(), "data");
  archive_entry_set_filetype(e.get(), AE_IFREG);
  if (archive_write_header(writer.get(), e.get()) < ARCHIVE_WARN) {
    fail(writer.get(), "writing the raw header");
  }
  write_data(writer.get(), data.data(), data.size());
  write_zeros(writer.get(), trailing_zeros);
  close_writer(writer.get());
  return out;
}

std::string zero_file_layer(std::string_view name, std::uint64_t size, Compression compression) {
  std::string out;
  ArchiveWriter writer = open_writer(&out, compression, false);
  EntryPtr e(archive_entry_new());
  archive_entry_copy_pathname(e.get(), std::string(name).c_str());
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), 0644);
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(size));
  if (archive_write_header(writer.get(), e.get()) < ARCHIVE_WARN) {
    fail(writer.get(), "writing the header");
  }
  write_zeros(writer.get(), size);
  close_writer(writer.get());
  return out;
}

std::string sha256_digest(std::string_view data) {
  unsigned char sum[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), sum, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < size; ++i) {
    out += kDigits[sum[i] >> 4];
    out += kDigits[sum[i] & 0xf];
  }
  return out;
}

core::UniqueFd blob_fd(std::string_view data) {
  core::UniqueFd fd(memfd_create("layer", MFD_CLOEXEC));
  if (!fd.valid()) throw std::runtime_error("memfd_create failed");
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd.get(), data.data() + done, data.size() - done);
    if (n <= 0) throw std::runtime_error("writing the blob failed");
    done += static_cast<std::size_t>(n);
  }
  if (lseek(fd.get(), 0, SEEK_SET) != 0) throw std::runtime_error("lseek failed");
  return fd;
}

}  // namespace paddock::testing
