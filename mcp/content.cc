#include "mcp/content.h"

#include "core/base64.h"

namespace paddock::mcp {

json text_block(std::string text) {
  return json{{"type", "text"}, {"text", std::move(text)}};
}

json image_block(std::string_view bytes, const std::string& mime_type) {
  return json{{"type", "image"}, {"data", core::base64_encode(bytes)}, {"mimeType", mime_type}};
}

json blob_resource_block(const std::string& uri, std::string_view bytes,
                         const std::string& mime_type) {
  return json{
      {"type", "resource"},
      {"resource", {{"uri", uri}, {"mimeType", mime_type}, {"blob", core::base64_encode(bytes)}}}};
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

}  // namespace paddock::mcp
