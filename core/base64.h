#pragma once

// Standard base64 (RFC 4648, with padding): how binary files and images travel in JSON.

#include <optional>
#include <string>
#include <string_view>

namespace paddock::core {

std::string base64_encode(std::string_view bytes);
// Nothing when `text` is not valid padded base64 (whitespace is not accepted either).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace paddock::core
