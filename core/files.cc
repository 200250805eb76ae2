#include "core/files.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace paddock {

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return system_error("cannot read " + std::string(what) + " " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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

}  // namespace paddock
