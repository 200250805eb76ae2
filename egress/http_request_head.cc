#include "egress/http_request_head.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "core/ip_prefix.h"
#include "core/text.h"
#include "egress/host_pattern.h"

namespace paddock::egress {
namespace {

using State = RequestHead::State;

RequestHead malformed(std::string why) {
  RequestHead head;
  head.state = State::kMalformed;
  head.error = std::move(why);
  return head;
}

struct Authority {
  std::string host;
  std::uint16_t port = 0;
};

// "host[:port]" or "[v6][:port]"; the host a name or a literal address.
std::optional<Authority> parse_authority(std::string_view text, std::uint16_t default_port) {
  Authority authority;
  std::string_view host = text;
  std::string_view port;
  if (host.starts_with('[')) {
    auto close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view rest = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!rest.empty() && (rest.front() != ':' || rest.size() == 1)) return std::nullopt;
    if (!rest.empty()) port = rest.substr(1);
    auto address = parse_ip_prefix(host);
    if (!address || address->family != AF_INET6) return std::nullopt;
  } else {
    auto colon = host.rfind(':');
    if (colon != std::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
      if (port.empty()) return std::nullopt;
    }
    if (!is_host_name(host) && !parse_ip_prefix(host)) return std::nullopt;
    if (host.find('/') != std::string_view::npos) return std::nullopt;
  }
  authority.host = to_lower(host);
  if (port.empty()) {
    if (default_port == 0) return std::nullopt;
    authority.port = default_port;
    return authority;
  }
  auto number = parse_port(port);
  if (!number) return std::nullopt;
  authority.port = *number;
  return authority;
}

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace

RequestHead parse_request_head(std::string_view bytes) {
  std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (bytes.size() >= kMaxRequestHead) return malformed("the request head is over 16 KiB");
    return RequestHead{};
  }
  if (end + 4 > kMaxRequestHead) return malformed("the request head is over 16 KiB");
  std::string_view head = bytes.substr(0, end + 2);
  RequestHead request;
  request.length = end + 4;
  std::size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  std::size_t first = line.find(' ');
  std::size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == last)
    return malformed("a malformed request line");
  request.method = std::string(line.substr(0, first));
  std::string_view target = line.substr(first + 1, last - first - 1);
  std::string_view version = line.substr(last + 1);
  if (!is_token(request.method) || (version != "HTTP/1.1" && version != "HTTP/1.0") ||
      target.empty() || target.find(' ') != std::string_view::npos) {
    return malformed("a malformed request line");
  }
  std::optional<std::string> host_header;
  std::optional<std::uint64_t> content_length;
  bool transfer_encoding = false;
  std::size_t headers = 0;
  for (std::size_t at = line_end + 2; at < head.size();) {
    std::size_t next = head.find("\r\n", at);
    std::string_view header = head.substr(at, next - at);
    at = next + 2;
    if (++headers > kMaxHeaders) return malformed("more than 100 header lines");
    std::size_t colon = header.find(':');
    if (colon == std::string_view::npos || !is_token(header.substr(0, colon))) {
      return malformed("a malformed header line");  // obsolete line folding included
    }
    std::string name = to_lower(header.substr(0, colon));
    std::string_view value = header.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (name == "transfer-encoding") transfer_encoding = true;
    if (name == "content-length") {
      std::uint64_t length = 0;
      auto [stop, error] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (value.empty() || error != std::errc() || stop != value.data() + value.size() ||
          (content_length && *content_length != length)) {
        return malformed("a malformed or repeated Content-Length");
      }
      content_length = length;
    }
    if (name != "host") continue;
    if (host_header) return malformed("two Host headers");
    host_header = std::string(value);
  }
  if (request.method == "CONNECT") {
    auto authority = parse_authority(target, 0);
    if (!authority) return malformed("CONNECT needs host:port");
    request.tunnel = true;
    request.host = authority->host;
    request.port = authority->port;
    request.state = State::kComplete;
    return request;
  }
  // Plain HTTP through a proxy: the absolute form, http only (HTTPS goes by CONNECT).
  if (transfer_encoding) {
    return malformed("a request body without Content-Length (chunked) over plain http; use https");
  }
  request.content_length = content_length.value_or(0);
  if (to_lower(target.substr(0, 7)) != "http://") {
    return malformed("a proxy request needs an absolute http:// URL (HTTPS goes by CONNECT)");
  }
  std::string_view rest = target.substr(7);
  std::size_t slash = std::min(rest.find_first_of("/?#"), rest.size());
  if (rest.substr(0, slash).find('@') != std::string_view::npos) {
    return malformed("a URL with user information");
  }
  auto authority = parse_authority(rest.substr(0, slash), 80);
  if (!authority) return malformed("a URL whose host is not a host name or address");
  if (host_header) {
    auto named = parse_authority(*host_header, 80);
    if (!named || named->host != authority->host || named->port != authority->port) {
      return malformed("the Host header names another host than the URL");
    }
  }
  request.host = authority->host;
  request.port = authority->port;
  request.path = slash < rest.size() && rest[slash] == '/' ? std::string(rest.substr(slash))
                                                           : "/" + std::string(rest.substr(slash));
  request.state = State::kComplete;
  return request;
}

}  // namespace paddock::egress
