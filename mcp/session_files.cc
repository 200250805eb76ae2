#include "mcp/session_files.h"

#include <cctype>

#include "core/mime_types.h"
#include "mcp/content.h"

namespace paddock::mcp {
namespace {

constexpr std::string_view kPrefix = "sandbox://sessions/";
constexpr std::string_view kFiles = "/files/";

// RFC 3986: unreserved characters and '/' as they are, every other byte as %XX.
std::string percent_encode(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

std::optional<std::string> percent_decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || std::isxdigit(static_cast<unsigned char>(text[i + 1])) == 0 ||
        std::isxdigit(static_cast<unsigned char>(text[i + 2])) == 0) {
      return std::nullopt;
    }
    out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

}  // namespace

std::string session_file_uri(const std::string& session_id, const std::string& path) {
  return std::string(kPrefix) + session_id + std::string(kFiles) + percent_encode(path);
}

std::optional<SessionFileRef> parse_session_file_uri(const std::string& uri) {
  if (!uri.starts_with(kPrefix)) return std::nullopt;
  std::string rest = uri.substr(kPrefix.size());
  auto files = rest.find(kFiles);
  if (files == std::string::npos || files == 0) return std::nullopt;
  auto path = percent_decode(rest.substr(files + kFiles.size()));
  if (!path) return std::nullopt;
  return SessionFileRef{rest.substr(0, files), std::move(*path)};
}

json file_content_block(const std::string& session_id, const std::string& path,
                        const runtime::FileContent& file, bool cut, std::string* delivery) {
  std::string mime = core::mime_type_for(path, file.data, cut);
  std::string uri = session_file_uri(session_id, path);
  if (cut) {
    *delivery = "resource_link";
    return resource_link_block(uri, path.substr(path.rfind('/') + 1), mime, file.size);
  }
  if (is_displayable_image(mime)) {
    *delivery = "image";
    return image_block(file.data, mime);
  }
  if (core::looks_like_text(file.data)) {
    *delivery = "text";
    return text_block(file.data);
  }
  *delivery = "resource";
  return blob_resource_block(uri, file.data, mime);
}

}  // namespace paddock::mcp
