#pragma once

// The destinations an egress allowlist names, as the user writes them (--allow-host, a
// policy's network.allow): "example.org", "*.example.org" (its subdomains, not itself),
// "example.org:8443", or an IP address or CIDR range for literal addresses ("10.1.2.0/24",
// "[2001:db8::1]:443"). Without a port a pattern allows 80 and 443, what HTTP and HTTPS use.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ip_prefix.h"
#include "core/result.h"

namespace paddock::net::egress {

struct HostPattern {
  std::string name;                     // lower case; for a wildcard, the part after "*."
  bool wildcard = false;                // "*.name": strict subdomains of name
  std::optional<core::IpPrefix> range;  // a literal address or range instead of a name
  std::optional<std::uint16_t> port;    // none: 80 and 443
};

// One pattern; the error names it and shows the accepted forms.
core::Result<HostPattern> parse_host_pattern(std::string_view text);

// The pattern that allows the server of an http:// or https:// URL (a package mirror): its
// host, with its port when the URL names one ("http://10.0.0.5:3141/simple" gives
// "10.0.0.5:3141"). The error says what is wrong with the URL.
core::Result<std::string> url_host_pattern(std::string_view url);

class AllowList {
 public:
  AllowList() = default;
  explicit AllowList(std::vector<HostPattern> patterns) : patterns_(std::move(patterns)) {}
  [[nodiscard]] bool empty() const { return patterns_.empty(); }
  // A name (any case) at a port, as a CONNECT or a Host header gives it.
  [[nodiscard]] bool allows_name(std::string_view host, std::uint16_t port) const;
  // An address at a port: one a name resolved to, or a literal one. Only ranges allow it.
  [[nodiscard]] bool allows_address(const core::IpPrefix& address, std::uint16_t port) const;
  // The same, counting only range patterns that lie within `within`: a forbidden range is
  // opened by a pattern that names part of it, never by a wider one ("0.0.0.0/0").
  [[nodiscard]] bool allows_address_within(const core::IpPrefix& address, std::uint16_t port,
                                           const core::IpPrefix& within) const;

 private:
  std::vector<HostPattern> patterns_;
};

}  // namespace paddock::net::egress
