#include "mcp/content.h"

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
  // Strict UTF-8 (RFC 3629): what would not survive serialisation unchanged is not text.
  for (std::size_t i = 0; i < bytes.size();) {
    auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
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
    if (length == 0 || i + length > bytes.size()) return false;
    for (std::size_t j = 1; j < length; ++j) {
      if ((byte(i + j) & 0xc0) != 0x80) return false;
    }
    unsigned char second = byte(i + 1);
    if ((lead == 0xe0 && second < 0xa0) ||  // overlong
        (lead == 0xed && second > 0x9f) ||  // a surrogate
        (lead == 0xf0 && second < 0x90) ||  // overlong
        (lead == 0xf4 && second > 0x8f)) {  // past U+10FFFF
      return false;
    }
    i += length;
  }
  return true;
}

}  // namespace paddock::mcp
