#pragma once

// What tests of unpacked trees ask of a path on the host: its lstat, whether it is there at all
// (a dangling symlink is), and its bytes.

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace paddock::testing {

// The path's lstat; st_mode 0 when there is nothing.
inline struct stat lstat_of(const std::filesystem::path& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) st.st_mode = 0;
  return st;
}

inline bool present(const std::filesystem::path& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace paddock::testing
