#pragma once

// A folder in /tmp for one test, removed with everything in it when the test ends; 0755, so that
// a sandbox user (another id than the test's) can enter it.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace paddock::testing {

class TempFolder {
 public:
  explicit TempFolder(const std::string& purpose) {
    std::string pattern = "/tmp/paddock-" + purpose + "-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    chmod(path_.c_str(), 0755);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace paddock::testing
