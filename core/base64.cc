#include "core/base64.h"

#include <array>

namespace paddock::core {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
             (static_cast<unsigned char>(bytes[i + 1]) << 8) |
             static_cast<unsigned char>(bytes[i + 2]);
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63],
            kAlphabet[n & 63]};
  }
  if (i + 1 == bytes.size()) {
    auto n = static_cast<unsigned char>(bytes[i]) << 16;
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
             (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], '='};
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  static const std::array<signed char, 256> kValue = [] {
    std::array<signed char, 256> table{};
    table.fill(-1);
    for (int i = 0; i < 64; ++i)
      table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<signed char>(i);
    return table;
  }();
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int values[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text[i + static_cast<std::size_t>(j)];
      bool last_group = i + 4 == text.size();
      if (c == '=' && last_group && j >= 2) {
        values[j] = 0;
        ++padding;
        continue;
      }
      if (padding > 0) return std::nullopt;  // data after padding
      values[j] = kValue[static_cast<unsigned char>(c)];
      if (values[j] < 0) return std::nullopt;
    }
    unsigned n = (static_cast<unsigned>(values[0]) << 18) |
                 (static_cast<unsigned>(values[1]) << 12) |
                 (static_cast<unsigned>(values[2]) << 6) | static_cast<unsigned>(values[3]);
    out += static_cast<char>((n >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((n >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

}  // namespace paddock::core
