#pragma once

// Builds image layers for tests with libarchive's writer: any entry type, any raw name (including
// hostile ones such as "../x" or "/etc/x", which the writer stores exactly as given), and the
// compressions layers come in. Layers are small and live in memory; bombs are streamed through
// the compressor so that only their compressed form is ever held.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/unique_fd.h"

namespace paddock::testing {

enum class Compression { kNone, kGzip, kZstd };

class LayerBuilder {
 public:
  struct Entry {
    enum class Type { kFile, kDir, kSymlink, kHardlink, kCharDevice, kBlockDevice, kFifo };
    Type type = Type::kFile;
    std::string name;     // stored exactly as given
    std::string content;  // kFile: the data; kSymlink, kHardlink: the target
    mode_t mode = 0644;
    unsigned dev_major = 0;
    unsigned dev_minor = 0;
    std::int64_t uid = 0;
    std::int64_t gid = 0;
    std::int64_t mtime = 1'700'000'000;
  };

  LayerBuilder& file(std::string name, std::string content, mode_t mode = 0644);
  LayerBuilder& dir(std::string name, mode_t mode = 0755);
  LayerBuilder& symlink(std::string name, std::string target);
  LayerBuilder& hardlink(std::string name, std::string target);
  LayerBuilder& char_device(std::string name, unsigned major, unsigned minor);
  LayerBuilder& block_device(std::string name, unsigned major, unsigned minor);
  LayerBuilder& fifo(std::string name, mode_t mode = 0644);
  // ".wh.<basename>" in the same directory: deletes `name` from lower layers.
  LayerBuilder& whiteout(std::string_view name);
  // "<dir>/.wh..wh..opq": hides everything lower layers have in `dir`.
  LayerBuilder& opaque(std::string_view dir);
  // Any entry, for the odd cases (owners, times).
  LayerBuilder& add(Entry entry);
  // The owner of the entry added last.
  LayerBuilder& owned_by(std::int64_t uid, std::int64_t gid);

  // The uncompressed tar (pax where needed, ustar otherwise): what the diff_id is computed over.
  [[nodiscard]] std::string tar() const;
  // tar() compressed.
  [[nodiscard]] std::string layer(Compression compression) const;

 private:
  std::vector<Entry> entries_;
};

// `data` followed by `trailing_zeros` zero bytes, compressed (or not), streamed through the
// compressor: a large run of zeros costs little memory.
std::string compress(std::string_view data, Compression compression,
                     std::uint64_t trailing_zeros = 0);

// A layer with one regular file `name` of `size` zero bytes, compressed as it is generated.
std::string zero_file_layer(std::string_view name, std::uint64_t size, Compression compression);

// "sha256:<hex>" of `data`.
std::string sha256_digest(std::string_view data);

// A memfd holding `data`, at offset 0, for APIs that read a blob from a file descriptor.
core::UniqueFd blob_fd(std::string_view data);

}  // namespace paddock::testing
