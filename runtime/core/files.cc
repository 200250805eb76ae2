#include "core/files.h"

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
