#include "net/egress/proxy_sockets.h"

#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace paddock::net::egress {

std::optional<core::IpPrefix> prefix_of(const sockaddr* address) {
  core::IpPrefix prefix;
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    prefix.family = AF_INET;
    prefix.length = 32;
    std::memcpy(prefix.bytes.data(), &in->sin_addr, 4);
    return prefix;
  }
  if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    // An address that reaches an IPv4 address is judged as that one: IPv4-mapped
    // (::ffff:127.0.0.1), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16).
    const std::uint8_t* bytes = in6->sin6_addr.s6_addr;
    static constexpr std::uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
    const std::uint8_t* embedded = nullptr;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) || std::memcmp(bytes, kNat64, 12) == 0) {
      embedded = bytes + 12;
    } else if (bytes[0] == 0x20 && bytes[1] == 0x02) {
      embedded = bytes + 2;
    }
    if (embedded != nullptr) {
      prefix.family = AF_INET;
      prefix.length = 32;
      std::memcpy(prefix.bytes.data(), embedded, 4);
      return prefix;
    }
    prefix.family = AF_INET6;
    prefix.length = 128;
    std::memcpy(prefix.bytes.data(), &in6->sin6_addr, 16);
    return prefix;
  }
  return std::nullopt;
}

std::string response(const char* status, const std::string& body) {
  return std::string("HTTP/1.1 ") + status +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

void answer_and_close(core::UniqueFd client, const char* status, const std::string& body) {
  std::string bytes = response(status, body);
  (void)io::send_some(client.get(), bytes);
}

}  // namespace paddock::net::egress
