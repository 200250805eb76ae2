#include "content.h"

#include "core/base64.h"

namespace paddock::mcp {

json text_block(std::string text) {
  return json{{"type", "text"}, {"text", std::move(text)}};
}

json image_block(std::string_view bytes, const std::string& mime_type) {
  return json{{"type", "image"}, {"data", base64_encode(bytes)}, {"mimeType", mime_type}};
}

json blob_resource_block(const std::string& uri, std::string_view bytes,
                         const std::string& mime_type) {
  return json{
      {"type", "resource"},
      {"resource", {{"uri", uri}, {"mimeType", mime_type}, {"blob", base64_encode(bytes)}}}};
}

json text_resource_block(const std::string& uri, std::string text, const std::string& mime_type) {
  return json{{"type", "resource"},
              {"resource", {{"uri", uri}, {"mimeType", mime_type}, {"text", std::move(text)}}}};
}

json resource_link_block(const std::string& uri, const std::string& name,
                         const std::string& mime_type, std::uint64_t size) {
  return json{{"type", "resource_link"},
              {"uri", uri},
              {"name", name},
              {"mimeType", mime_type},
              {"size", size}};
}

bool is_displayable_image(const std::string& mime_type) {
  return mime_type == "image/png" || mime_type == "image/jpeg" || mime_type == "image/gif" ||
         mime_type == "image/webp";
}

bool looks_like_text(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) return false;
    std::size_t length = c < 0x80           ? 1
                         : (c >> 5) == 0x6  ? 2
                         : (c >> 4) == 0xe  ? 3
                         : (c >> 3) == 0x1e ? 4
                                            : 0;
    if (length == 0 || i + length > bytes.size()) return false;
    for (std::size_t j = 1; j < length; ++j) {
      if ((static_cast<unsigned char>(bytes[i + j]) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace paddock::mcp
