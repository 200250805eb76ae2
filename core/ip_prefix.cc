#include "core/ip_prefix.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>

namespace paddock::core {
std::optional<IpPrefix> parse_ip_prefix(std::string_view text) {
  std::string address(text.substr(0, text.find('/')));
  IpPrefix prefix;
  if (inet_pton(AF_INET, address.c_str(), prefix.bytes.data()) == 1) {
    prefix.family = AF_INET;
  } else if (inet_pton(AF_INET6, address.c_str(), prefix.bytes.data()) == 1) {
    prefix.family = AF_INET6;
  } else {
    return std::nullopt;
  }
  prefix.length = prefix.address_bits();
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    unsigned length = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
        length > prefix.length) {
      return std::nullopt;
    }
    prefix.length = length;
  }
  for (unsigned bit = prefix.length; bit < prefix.address_bits(); ++bit) {
    if ((prefix.bytes[bit / 8] >> (7 - bit % 8)) & 1) return std::nullopt;
  }
  return prefix;
}

std::string to_string(const IpPrefix& prefix) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(prefix.family, prefix.bytes.data(), text, sizeof text);
  return std::string(text) + "/" + std::to_string(prefix.length);
}

bool prefix_contains(const IpPrefix& range, const IpPrefix& address) {
  if (range.family != address.family) return false;
  unsigned bits = range.length;
  for (unsigned byte = 0; bits > 0; ++byte) {
    unsigned mask = bits >= 8 ? 0xffu : (0xffu << (8 - bits)) & 0xffu;
    if ((range.bytes[byte] & mask) != (address.bytes[byte] & mask)) return false;
    bits = bits >= 8 ? bits - 8 : 0;
  }
  return true;
}

}  // namespace paddock::core
