// Fuzzes the unpacking of an image layer (rootfs/layer_unpacker.h) with the real rules of a
// layer: the blob (gzip, zstd or plain tar) unpacked into a directory this target makes and
// removes for every input, so every path the archive names is resolved for real (openat2), and
// a file the archive places outside the directory shows up as a leftover.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "rootfs/layer_unpacker.h"

namespace {

namespace fs = std::filesystem;

// Everything under `root` made removable: an archive may leave folders without write or search
// permission, which the unprivileged user running the fuzzer could not empty.
void open_up(const fs::path& root) {
  std::error_code error;
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, error);
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory(error) && !it->is_symlink(error)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
    }
  }
}

fs::path& scratch() {
  static fs::path path = [] {
    std::string pattern = (fs::temp_directory_path() / "paddock-fuzz-tar-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    // Removed when the fuzzer exits normally; a crash leaves it to the runner's temporary folder.
    std::atexit([] {
      open_up(scratch());
      std::error_code error;
      fs::remove_all(scratch(), error);
    });
    return fs::path(pattern);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int blob = memfd_create("layer", MFD_CLOEXEC);
  if (blob < 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    ssize_t wrote = write(blob, data + done, size - done);
    if (wrote <= 0) std::abort();
    done += static_cast<std::size_t>(wrote);
  }
  lseek(blob, 0, SEEK_SET);
  fs::path target = scratch() / "layer";
  fs::create_directory(target);
  int target_fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (target_fd < 0) std::abort();
  // Small limits: a bomb is refused in a few MiB, and each input stays quick.
  paddock::rootfs::UnpackLimits limits;
  limits.max_bytes = 8u << 20;
  limits.max_entries = 4096;
  (void)paddock::rootfs::unpack_layer(blob, target_fd, limits);
  close(target_fd);
  close(blob);
  open_up(target);
  std::error_code error;
  fs::remove_all(target, error);
  if (error) {
    std::fprintf(stderr, "cannot remove %s: %s\n", target.c_str(), error.message().c_str());
    std::abort();
  }
  // Nothing of the layer may land beside its directory.
  if (!fs::is_empty(scratch())) {
    std::fprintf(stderr, "the layer wrote outside its directory, into %s\n", scratch().c_str());
    std::abort();
  }
  return 0;
}
