#include "core/mime_types.h"

#include <algorithm>
#include <map>

namespace paddock {

std::string mime_type_for(const std::string& path) {
  static const std::map<std::string, std::string> kTypes = {
      {"png", "image/png"},   {"svg", "image/svg+xml"},     {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"}, {"gif", "image/gif"},         {"pdf", "application/pdf"},
      {"csv", "text/csv"},    {"json", "application/json"}, {"txt", "text/plain"},
      {"html", "text/html"},  {"md", "text/markdown"},      {"webp", "image/webp"},
  };
  auto dot = path.rfind('.');
  if (dot == std::string::npos) return "application/octet-stream";
  std::string extension = path.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto found = kTypes.find(extension);
  return found == kTypes.end() ? "application/octet-stream" : found->second;
}

}  // namespace paddock
