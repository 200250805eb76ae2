#pragma once

// Reading whole files, directories and JSON documents with errors a user can act on.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace paddock::core {

// The file's bytes; the error says "cannot read WHAT PATH: reason".
Result<std::string> read_text_file(const std::string& path, std::string_view what);

// The file's bytes, or "" when it cannot be read: for /proc, /sys and /etc files that may be
// absent.
std::string read_text_or_empty(const std::string& path);

// The names in a directory but "." and "..", sorted; none when it cannot be read.
std::vector<std::string> directory_names(const std::string& path);

// A JSON document; the error says "ORIGIN: is not valid JSON: parse error at line L, column C:
// ...". Exceptions from the parser stop here.
Result<nlohmann::json> parse_json_text(std::string_view text, std::string_view origin);

}  // namespace paddock::core
