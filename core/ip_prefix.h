#pragma once

// IP addresses and CIDR ranges as written by users ("10.1.2.0/24", "fd00::/8", "192.0.2.7").

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace paddock::core {

struct IpPrefix {
  int family = 0;  // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};
  unsigned length = 0;  // prefix length in bits

  [[nodiscard]] unsigned address_bits() const { return family == AF_INET ? 32 : 128; }

  friend bool operator==(const IpPrefix&, const IpPrefix&) = default;
};

// An address alone is a /32 or /128. Host bits must be zero: "10.1.2.3/8" is refused, since a
// rule made from it would mean something other than what was written.
std::optional<IpPrefix> parse_ip_prefix(std::string_view text);
std::string to_string(const IpPrefix& prefix);

// Whether `address` (a /32 or /128) lies in `range`; never across families.
bool prefix_contains(const IpPrefix& range, const IpPrefix& address);

}  // namespace paddock::core
