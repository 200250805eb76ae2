#include "core/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/unique_fd.h"

namespace paddock::core {

namespace {

// With read(2), not a stream: an ifstream's buffer and locale cost a `paddock run` tens of
// microseconds for each of the few small files it reads at every start.
bool read_whole(const std::string& path, std::string& text) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  char buffer[16384];
  for (;;) {
    ssize_t got = read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  std::string text;
  if (!read_whole(path, text)) return system_error("cannot read " + std::string(what) + " " + path);
  return text;
}

std::string read_text_or_empty(const std::string& path) {
  std::string text;
  return read_whole(path, text) ? text : std::string();
}

std::vector<std::string> directory_names(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<nlohmann::json> parse_json_text(std::string_view text, std::string_view origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the tag.
    std::string what = error.what();
    auto tag_end = what.find("] ");
    return invalid_input(std::string(origin) + ": is not valid JSON: " +
                         (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
}

}  // namespace paddock::core
