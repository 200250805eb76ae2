#include "core/mime_types.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"

namespace paddock::core {
namespace {

constexpr const char* kUnknown = "application/octet-stream";

// Registered types where there is one; otherwise the x- names editors and browsers use. Source
// and data files have text types so that clients show them as text, not as opaque bytes.
// A data table: its one function is longer than 80 lines.
const std::map<std::string, std::string, std::less<>>& types_by_extension() {
  static const std::map<std::string, std::string, std::less<>> kTypes = {
      // Images and documents.
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"bmp", "image/bmp"},
      {"tif", "image/tiff"},
      {"tiff", "image/tiff"},
      {"svg", "image/svg+xml"},
      {"pdf", "application/pdf"},
      // Archives and binary data.
      {"zip", "application/zip"},
      {"gz", "application/gzip"},
      {"tar", "application/x-tar"},
      {"parquet", "application/vnd.apache.parquet"},
      {"wasm", "application/wasm"},
      // Text and data.
      {"txt", "text/plain"},
      {"text", "text/plain"},
      {"log", "text/plain"},
      {"out", "text/plain"},
      {"ini", "text/plain"},
      {"cfg", "text/plain"},
      {"conf", "text/plain"},
      {"env", "text/plain"},
      {"csv", "text/csv"},
      {"tsv", "text/tab-separated-values"},
      {"md", "text/markdown"},
      {"markdown", "text/markdown"},
      {"rmd", "text/markdown"},
      {"rst", "text/x-rst"},
      {"tex", "text/x-tex"},
      {"html", "text/html"},
      {"htm", "text/html"},
      {"css", "text/css"},
      {"xml", "application/xml"},
      {"json", "application/json"},
      {"jsonl", "application/jsonl"},
      {"ndjson", "application/x-ndjson"},
      {"ipynb", "application/x-ipynb+json"},
      {"geojson", "application/geo+json"},
      {"yaml", "application/yaml"},
      {"yml", "application/yaml"},
      {"toml", "application/toml"},
      {"sql", "application/sql"},
      {"diff", "text/x-diff"},
      {"patch", "text/x-diff"},
      // Source code.
      {"py", "text/x-python"},
      {"pyi", "text/x-python"},
      {"r", "text/x-r"},
      {"js", "text/javascript"},
      {"mjs", "text/javascript"},
      {"cjs", "text/javascript"},
      {"ts", "text/x-typescript"},
      {"mts", "text/x-typescript"},
      {"tsx", "text/x-typescript"},
      {"jsx", "text/javascript"},
      {"java", "text/x-java"},
      {"kt", "text/x-kotlin"},
      {"scala", "text/x-scala"},
      {"c", "text/x-c"},
      {"h", "text/x-c"},
      {"cc", "text/x-c++"},
      {"cpp", "text/x-c++"},
      {"cxx", "text/x-c++"},
      {"hh", "text/x-c++"},
      {"hpp", "text/x-c++"},
      {"hxx", "text/x-c++"},
      {"cs", "text/x-csharp"},
      {"go", "text/x-go"},
      {"rs", "text/x-rust"},
      {"rb", "text/x-ruby"},
      {"php", "text/x-php"},
      {"pl", "text/x-perl"},
      {"lua", "text/x-lua"},
      {"jl", "text/x-julia"},
      {"swift", "text/x-swift"},
      {"hs", "text/x-haskell"},
      {"sh", "text/x-shellscript"},
      {"bash", "text/x-shellscript"},
  };
  return kTypes;
}

// Text types outside text/*; "+json", "+xml" and "+yaml" types are text by their suffix.
const std::set<std::string, std::less<>>& text_application_types() {
  static const std::set<std::string, std::less<>> kTypes = {
      "application/json",          "application/jsonl",      "application/x-ndjson",
      "application/xml",           "application/yaml",       "application/x-yaml",
      "application/toml",          "application/sql",        "application/javascript",
      "application/x-javascript",  "application/ecmascript", "application/x-sh",
      "application/x-shellscript", "application/x-python",   "application/x-tex",
      "application/graphql",
  };
  return kTypes;
}

}  // namespace

std::string mime_type_for(const std::string& path) {
  // The extension of the last path element only: "run.v2/data" has none.
  std::string_view name(path);
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return kUnknown;
  auto found = types_by_extension().find(to_lower(name.substr(dot + 1)));
  return found == types_by_extension().end() ? kUnknown : found->second;
}

std::string mime_type_for(const std::string& path, std::string_view bytes, bool cut) {
  std::string by_name = mime_type_for(path);
  if (by_name != kUnknown) return by_name;
  return looks_like_text(bytes, cut) ? "text/plain" : kUnknown;
}

bool is_text_mime_type(std::string_view mime_type) {
  std::string type = trim(mime_type.substr(0, mime_type.find(';')));
  type = to_lower(type);
  if (type.starts_with("text/")) return true;
  for (std::string_view suffix : {"+json", "+xml", "+yaml"}) {
    if (type.ends_with(suffix)) return true;
  }
  return text_application_types().contains(type);
}

bool looks_like_text(std::string_view bytes, bool cut) {
  // Strict UTF-8 (RFC 3629): what would not survive serialisation unchanged is not text.
  auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
  for (std::size_t i = 0; i < bytes.size();) {
    unsigned char lead = byte(i);
    if (lead == 0) return false;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                         : lead >= 0xe0 && lead <= 0xef ? 3
                         : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                        : 0;
    if (length == 0) return false;
    // A file's beginning may end inside a character; what is there must still be its start.
    std::size_t present = std::min(length, bytes.size() - i);
    if (present < length && !cut) return false;
    for (std::size_t j = 1; j < present; ++j) {
      if ((byte(i + j) & 0xc0) != 0x80) return false;
    }
    if (present > 1) {
      unsigned char second = byte(i + 1);
      if ((lead == 0xe0 && second < 0xa0) ||  // overlong
          (lead == 0xed && second > 0x9f) ||  // a surrogate
          (lead == 0xf0 && second < 0x90) ||  // overlong
          (lead == 0xf4 && second > 0x8f)) {  // past U+10FFFF
        return false;
      }
    }
    i += present;
  }
  return true;
}

}  // namespace paddock::core
