#include "core/companion_program.h"

#include <unistd.h>

#include <climits>

namespace paddock::core {

std::vector<std::string> companion_program_paths(std::string_view name) {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return {};
  std::string self(path, static_cast<std::size_t>(length));
  std::string folder = self.substr(0, self.rfind('/') + 1);
  // PADDOCK_PRIVATE_DIR: lib/paddock, relative to the prefix (the top CMakeLists.txt installs
  // there); the executable is in PREFIX/bin.
  return {folder + std::string(name), folder + "../" PADDOCK_PRIVATE_DIR "/" + std::string(name)};
}

}  // namespace paddock::core
