#include "net/http1/host_name.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace paddock::net::http1 {

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

bool is_host_name(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = std::min(text.find('.', start), text.size());
    std::string_view label = text.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (unsigned char c : label) {
      if (std::isalnum(c) == 0 && c != '-') return false;
    }
    start = dot + 1;
  }
  return true;
}

}  // namespace paddock::net::http1
