#include "state/file_digest.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

// Header-only (XXH_INLINE_ALL): nothing to link, in the static paddock too.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace paddock::state {
namespace {

constexpr std::uint64_t kPage = 4096;
// A multiple of kPage, read into a buffer each thread keeps: a save digests every file, and a
// new buffer per file cost more in page faults than the digest itself.
constexpr std::uint64_t kChunk = 128u << 10;

bool all_zero(const char* bytes, std::size_t length) {
  static const char zeros[kPage] = {};
  return std::memcmp(bytes, zeros, length) == 0;
}

}  // namespace

core::Result<std::string> file_digest(int fd, std::uint64_t size) {
  XXH3_state_t hasher;
  XXH3_128bits_reset(&hasher);
  thread_local std::vector<char> buffer(kChunk);
  // Each page that is not all zeros goes in with its offset and length; the size closes the digest.
  // So two files digest the same exactly when they hold the same bytes at the same offsets.
  auto feed_page = [&](std::uint64_t offset, const char* bytes, std::size_t length) {
    if (all_zero(bytes, length)) return;
    std::uint64_t header[2] = {offset, length};
    XXH3_128bits_update(&hasher, header, sizeof header);
    XXH3_128bits_update(&hasher, bytes, length);
  };
  std::uint64_t at = 0;
  while (at < size) {
    off_t data = lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;      // only a hole is left
      data = static_cast<off_t>(at);  // no SEEK_DATA here: read everything
    }
    auto from = static_cast<std::uint64_t>(data) / kPage * kPage;
    if (from >= size) break;
    off_t hole = lseek(fd, data, SEEK_HOLE);
    std::uint64_t to =
        hole < 0 ? size : std::min<std::uint64_t>(static_cast<std::uint64_t>(hole), size);
    if (to <= from) to = std::min(size, from + kPage);
    while (from < to) {
      std::size_t wanted = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, to - from));
      ssize_t got = pread(fd, buffer.data(), wanted, static_cast<off_t>(from));
      if (got < 0) {
        if (errno == EINTR) continue;
        return core::system_error("reading a file to compare it");
      }
      if (got == 0) {
        to = from;  // it shrank while it was read: the size below tells
        break;
      }
      for (std::size_t page = 0; page < static_cast<std::size_t>(got); page += kPage) {
        feed_page(from + page, buffer.data() + page,
                  std::min<std::size_t>(kPage, static_cast<std::size_t>(got) - page));
      }
      from += static_cast<std::uint64_t>(got);
    }
    at = std::max(to, at + 1);
  }
  XXH3_128bits_update(&hasher, &size, sizeof size);
  XXH128_hash_t digest = XXH3_128bits_digest(&hasher);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(digest.high64),
                static_cast<unsigned long long>(digest.low64));
  return std::string(text);
}

}  // namespace paddock::state
