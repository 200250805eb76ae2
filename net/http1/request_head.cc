#include "net/http1/request_head.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "core/ip_prefix.h"
#include "core/text.h"
#include "net/http1/head_lines.h"
#include "net/http1/host_name.h"

namespace paddock::net::http1 {
namespace {

using State = RequestHead::State;

RequestHead malformed(std::string why) {
  return malformed_head<RequestHead>(std::move(why));
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
    auto address = core::parse_ip_prefix(host);
    if (!address || address->family != AF_INET6) return std::nullopt;
  } else {
    auto colon = host.rfind(':');
    if (colon != std::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
      if (port.empty()) return std::nullopt;
    }
    if (!is_host_name(host) && !core::parse_ip_prefix(host)) return std::nullopt;
    if (host.find('/') != std::string_view::npos) return std::nullopt;
  }
  authority.host = core::to_lower(host);
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

}  // namespace

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

std::size_t bare_line_break(std::string_view bytes) {
  for (std::size_t at = bytes.find_first_of("\r\n"); at != std::string_view::npos;
       at = bytes.find_first_of("\r\n", at + 1)) {
    if (bytes[at] == '\n') return at;
    if (at + 1 == bytes.size()) return std::string_view::npos;
    if (bytes[at + 1] != '\n') return at;
    ++at;  // past the LF of this CRLF
  }
  return std::string_view::npos;
}

// RFC 9110 section 5.5: field values are visible characters, blanks and obs-text.
bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

namespace {

// The request line: method, target and version, each checked; the target, or nothing.
std::optional<std::string_view> read_request_line(std::string_view line, RequestHead& request) {
  std::size_t first = line.find(' ');
  std::size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == last) return std::nullopt;
  request.method = std::string(line.substr(0, first));
  std::string_view target = line.substr(first + 1, last - first - 1);
  std::string_view version = line.substr(last + 1);
  if (!is_token(request.method) || (version != "HTTP/1.1" && version != "HTTP/1.0") ||
      target.empty() || target.find(' ') != std::string_view::npos ||
      has_control_character(target)) {
    return std::nullopt;
  }
  request.version = std::string(version);
  return target;
}

// What the headers say of where the request goes and how its body is framed.
struct Framing {
  std::optional<std::string> host;
  std::optional<std::uint64_t> content_length;
  bool transfer_encoding = false;
  std::size_t codings = 0;  // Transfer-Encoding headers
  bool chunked_only = false;
};

// The error, or empty.
std::string read_framing(const std::vector<RequestHead::Header>& headers, Framing& framing) {
  for (const auto& header : headers) {
    std::string name = core::to_lower(header.name);
    std::string_view value = header.value;
    if (name == "transfer-encoding") {
      framing.transfer_encoding = true;
      framing.chunked_only = ++framing.codings == 1 && core::to_lower(value) == "chunked";
    }
    if (name == "content-length") {
      // One, of digits only: two, even equal, are how two servers come to frame a body apart.
      std::uint64_t length = 0;
      auto [stop, error] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (value.empty() || error != std::errc() || stop != value.data() + value.size() ||
          framing.content_length) {
        return "a malformed or repeated Content-Length";
      }
      framing.content_length = length;
    }
    if (name != "host") continue;
    if (framing.host) return "two Host headers";
    framing.host = std::string(value);
  }
  return {};
}

RequestHead origin_form(RequestHead request, std::string_view target, const Framing& framing) {
  // Only where the proxy frames every body itself, and one way: Content-Length beside
  // Transfer-Encoding is the classic way to frame one body twice (RFC 9112 section 6.1).
  if (request.method == "CONNECT" || !target.starts_with('/')) {
    return malformed("a request inside a TLS connection needs an origin-form target (/path)");
  }
  if (framing.transfer_encoding &&
      (!framing.chunked_only || framing.codings != 1 || framing.content_length)) {
    return malformed("a Transfer-Encoding other than chunked alone, or beside a Content-Length");
  }
  if (!framing.host) return malformed("a request without a Host header");
  auto named = parse_authority(*framing.host, 443);
  if (!named) return malformed("a Host header that is not a host name or address");
  request.host = named->host;
  request.port = named->port;
  request.path = std::string(target);
  request.chunked = framing.transfer_encoding;
  request.content_length = framing.content_length.value_or(0);
  request.state = State::kComplete;
  return request;
}

RequestHead proxy_form(RequestHead request, std::string_view target, const Framing& framing) {
  if (request.method == "CONNECT") {
    auto authority = parse_authority(target, 0);
    if (!authority) return malformed("CONNECT needs host:port");
    request.tunnel = true;
    request.host = authority->host;
    request.port = authority->port;
    request.state = State::kComplete;
    return request;
  }
  // Plain HTTP through a proxy: the absolute form, http only (HTTPS goes by CONNECT). A body
  // framed by a transfer coding (chunked) would hide where the next request's head starts,
  // and Transfer-Encoding beside Content-Length is the classic way to frame one body twice.
  if (framing.transfer_encoding) {
    return malformed("a request body without Content-Length (chunked) over plain http; use https");
  }
  request.content_length = framing.content_length.value_or(0);
  if (core::to_lower(target.substr(0, 7)) != "http://") {
    return malformed("a proxy request needs an absolute http:// URL (HTTPS goes by CONNECT)");
  }
  std::string_view rest = target.substr(7);
  std::size_t slash = std::min(rest.find_first_of("/?#"), rest.size());
  if (rest.substr(0, slash).find('@') != std::string_view::npos) {
    return malformed("a URL with user information");
  }
  auto authority = parse_authority(rest.substr(0, slash), 80);
  if (!authority) return malformed("a URL whose host is not a host name or address");
  // Exactly one Host, naming the URL's host: an upstream server that routes by Host (a shared
  // CDN address, virtual hosts) would otherwise pick a host the proxy never checked.
  if (!framing.host) return malformed("a request without a Host header");
  auto named = parse_authority(*framing.host, 80);
  if (!named || named->host != authority->host || named->port != authority->port) {
    return malformed("the Host header names another host than the URL");
  }
  request.host = authority->host;
  request.port = authority->port;
  request.path = slash < rest.size() && rest[slash] == '/' ? std::string(rest.substr(slash))
                                                           : "/" + std::string(rest.substr(slash));
  request.state = State::kComplete;
  return request;
}

}  // namespace

RequestHead parse_request_head(std::string_view bytes, RequestForm form) {
  HeadEnd end = find_head_end(bytes, kMaxRequestHead, "the request head");
  if (end.state == HeadEnd::State::kMalformed) return malformed(std::move(end.error));
  if (end.state == HeadEnd::State::kNeedMore) return RequestHead{};
  std::string_view head = bytes.substr(0, end.length - 2);
  RequestHead request;
  request.length = end.length;
  std::size_t line_end = head.find("\r\n");
  auto target = read_request_line(head.substr(0, line_end), request);
  if (!target) return malformed("a malformed request line");
  std::string error = parse_header_lines(head.substr(line_end + 2), request.headers);
  Framing framing;
  if (error.empty()) error = read_framing(request.headers, framing);
  if (!error.empty()) return malformed(std::move(error));
  return form == RequestForm::kOrigin ? origin_form(std::move(request), *target, framing)
                                      : proxy_form(std::move(request), *target, framing);
}

std::string upstream_request_head(const RequestHead& head) {
  std::string out = head.method + " " + head.path + " " + head.version + "\r\n";
  for (const auto& header : head.headers) {
    if (core::to_lower(header.name).starts_with("proxy-")) continue;
    out.append(header.name).append(": ").append(header.value).append("\r\n");
  }
  return out + "\r\n";
}

}  // namespace paddock::net::http1
