#include "net/egress/host_pattern.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/text.h"
#include "net/http1/host_name.h"

namespace paddock::net::egress {
namespace {

constexpr std::string_view kForms =
    "use example.org, *.example.org, example.org:8443, 10.1.2.0/24 or [2001:db8::1]:443";

bool port_allowed(const HostPattern& pattern, std::uint16_t port) {
  return pattern.port ? *pattern.port == port : (port == 80 || port == 443);
}

}  // namespace

core::Result<HostPattern> parse_host_pattern(std::string_view text) {
  auto refuse = [&](std::string_view why) {
    return core::invalid_input("allowed host '" + std::string(text) + "' " + std::string(why) +
                               "; " + std::string(kForms));
  };
  HostPattern pattern;
  std::string_view host = text;
  // The port: after "]" for a bracketed IPv6 address, else after the one colon of a name or
  // IPv4 address (a bare IPv6 address has several and no port).
  std::optional<std::string_view> port;
  if (host.starts_with('[')) {
    auto close = host.find(']');
    if (close == std::string_view::npos) return refuse("has no closing ']'");
    std::string_view rest = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return refuse("has something after ']' that is not a port");
      port = rest.substr(1);
    }
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    port = host.substr(host.find(':') + 1);
    host = host.substr(0, host.find(':'));
  }
  if (port) {
    pattern.port = http1::parse_port(*port);
    if (!pattern.port) return refuse("has a port that is not 1 to 65535");
  }
  if (host.empty()) return refuse("names no host");
  if (auto range = core::parse_ip_prefix(host)) {
    pattern.range = *range;
    return pattern;
  }
  if (host.find_first_of("/:") != std::string_view::npos) {
    return refuse("is not an address or range (host bits set, or a malformed address)");
  }
  if (host.starts_with("*.")) {
    pattern.wildcard = true;
    host.remove_prefix(2);
  }
  if (!http1::is_host_name(host)) return refuse("is not a host name");
  // A wildcard of a top-level domain alone ("*.com") would open most of the internet.
  if (pattern.wildcard && host.find('.') == std::string_view::npos) {
    return refuse("is a wildcard over a whole top-level domain");
  }
  pattern.name = core::to_lower(host);
  return pattern;
}

core::Result<std::string> url_host_pattern(std::string_view url) {
  std::string lower = core::to_lower(url);
  std::size_t scheme_end = lower.starts_with("https://") ? 8 : lower.starts_with("http://") ? 7 : 0;
  if (scheme_end == 0) {
    return core::invalid_input("'" + std::string(url) + "' is not an http:// or https:// URL");
  }
  std::string_view authority = std::string_view(lower).substr(scheme_end);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  // Credentials for the mirror stay in the URL the installer gets, never in the pattern.
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  auto pattern = parse_host_pattern(authority);
  if (!pattern) {
    return core::invalid_input("'" + std::string(url) +
                               "' does not name a server: " + pattern.error().message);
  }
  if (pattern->wildcard)
    return core::invalid_input("'" + std::string(url) + "' names no single server");
  return std::string(authority);
}

bool AllowList::allows_name(std::string_view host, std::uint16_t port) const {
  std::string name = core::to_lower(host);
  for (const auto& pattern : patterns_) {
    if (pattern.range || !port_allowed(pattern, port)) continue;
    if (!pattern.wildcard && name == pattern.name) return true;
    if (pattern.wildcard && name.size() > pattern.name.size() + 1 &&
        name.ends_with("." + pattern.name)) {
      return true;
    }
  }
  return false;
}

bool AllowList::allows_address(const core::IpPrefix& address, std::uint16_t port) const {
  for (const auto& pattern : patterns_) {
    if (pattern.range && port_allowed(pattern, port) &&
        core::prefix_contains(*pattern.range, address)) {
      return true;
    }
  }
  return false;
}

bool AllowList::allows_address_within(const core::IpPrefix& address, std::uint16_t port,
                                      const core::IpPrefix& within) const {
  for (const auto& pattern : patterns_) {
    if (pattern.range && port_allowed(pattern, port) && pattern.range->length >= within.length &&
        core::prefix_contains(within, *pattern.range) &&
        core::prefix_contains(*pattern.range, address)) {
      return true;
    }
  }
  return false;
}

}  // namespace paddock::net::egress
