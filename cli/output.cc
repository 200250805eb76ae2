#include "cli/output.h"

#include <unistd.h>

#include <cerrno>

namespace paddock::cli {

int fail(const std::string& message) {
  core::write_all(STDERR_FILENO, "paddock: " + message + "\n");
  return kPaddockFailure;
}

void note(const std::string& message) {
  core::write_all(STDERR_FILENO, "paddock: " + message + "\n");
}

}  // namespace paddock::cli
