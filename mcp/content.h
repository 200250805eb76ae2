#pragma once

// MCP content blocks, built one way everywhere.

#include <cstdint>
#include <string>
#include <string_view>

#include "mcp/json_rpc.h"

namespace paddock::mcp {

json text_block(std::string text);
json image_block(std::string_view bytes, const std::string& mime_type);
// Binary data inline, as an embedded resource with a base64 blob.
json blob_resource_block(const std::string& uri, std::string_view bytes,
                         const std::string& mime_type);
json text_resource_block(const std::string& uri, std::string text, const std::string& mime_type);
// A pointer the client can follow with resources/read.
json resource_link_block(const std::string& uri, const std::string& name,
                         const std::string& mime_type, std::uint64_t size);

// Whether an image block may carry this MIME type (what clients render).
bool is_displayable_image(const std::string& mime_type);

}  // namespace paddock::mcp
