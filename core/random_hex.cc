#include "core/random_hex.h"

#include <sys/random.h>

#include <cerrno>
#include <vector>

namespace paddock::core {

Result<std::string> random_hex(std::size_t bytes, std::string_view purpose) {
  std::vector<unsigned char> drawn(bytes);
  for (std::size_t got = 0; got < bytes;) {
    ssize_t n = getrandom(drawn.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error(purpose);
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char byte : drawn) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

}  // namespace paddock::core
