#include "support/python_image.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace paddock::testing {

std::string python_image_layout(std::string& error) {
  const char* layout = std::getenv("PADDOCK_TEST_PYTHON_LAYOUT");
  if (layout == nullptr || *layout == '\0') {
    error =
        "PADDOCK_TEST_PYTHON_LAYOUT is not set: scripts/test builds the python image with "
        "scripts/build-language-images --layouts";
    return "";
  }
  const char* status_file = std::getenv("PADDOCK_TEST_PYTHON_LAYOUT_STATUS");
  if (status_file == nullptr || *status_file == '\0') return layout;
  // The download shares the machine with three users' suites: a generous bound, well inside CI's.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(40);
  while (!std::filesystem::exists(status_file)) {
    if (std::chrono::steady_clock::now() > deadline) {
      error = std::string("the python image was not built in 40 minutes (no ") + status_file + ")";
      return "";
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  std::string status;
  std::ifstream(status_file) >> status;
  if (status != "0") {
    error = "the python image's build failed (exit " + status +
            "): scripts/test shows scripts/build-language-images' log";
    return "";
  }
  return layout;
}

}  // namespace paddock::testing
