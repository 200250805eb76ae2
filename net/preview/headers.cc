#include "net/preview/headers.h"

#include <algorithm>

#include "core/text.h"
#include "net/preview/access.h"

namespace paddock::net::preview {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Hop-by-hop headers (RFC 9110 section 7.6.1): the relay sets its own.
bool hop_by_hop(const std::string& lower_name) {
  return lower_name == "connection" || lower_name == "keep-alive" ||
         lower_name == "proxy-connection" || lower_name.starts_with("proxy-");
}

// A preview's token cookie, of any preview: never the sandbox's to see or to set.
bool token_cookie(std::string_view name) {
  return name.starts_with(kPreviewTokenParameter);
}

// "name=value" of a Set-Cookie value (before its first ';'), blanks around each trimmed, as a
// browser stores it and sends it back; empty when it has no name.
std::string set_cookie_pair(std::string_view value) {
  std::string_view pair = value.substr(0, value.find(';'));
  std::size_t equals = pair.find('=');
  if (equals == std::string_view::npos) return {};
  std::string_view name = trimmed(pair.substr(0, equals));
  if (name.empty()) return {};
  return std::string(name) + "=" + std::string(trimmed(pair.substr(equals + 1)));
}

PreviewResponseHead malformed(std::string why) {
  PreviewResponseHead head;
  head.state = PreviewResponseHead::State::kMalformed;
  head.error = std::move(why);
  return head;
}

}  // namespace

bool asks_upgrade(const http1::RequestHead& head) {
  return std::any_of(head.headers.begin(), head.headers.end(), [](const auto& header) {
    return to_lower(header.name) == "upgrade" && to_lower(header.value) == "websocket";
  });
}

std::string preview_request_head(const http1::RequestHead& head, const PreviewGrants& grants) {
  std::string out = head.method + " " + head.path + " " + head.version + "\r\n";
  bool upgrade = asks_upgrade(head);
  for (const auto& header : head.headers) {
    std::string name = to_lower(header.name);
    if (hop_by_hop(name)) continue;
    // Another protocol than a WebSocket's (h2c) would carry later requests past the relay.
    if (name == "upgrade" && !upgrade) continue;
    if (name == "authorization" && !grants.authorization) continue;
    if (name == "cookie") {
      std::string kept;
      std::string_view rest = header.value;
      while (!rest.empty()) {
        std::size_t end = rest.find(';');
        std::string_view pair = trimmed(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        if (pair.empty() || token_cookie(pair)) continue;
        if (std::find(grants.cookies.begin(), grants.cookies.end(), pair) == grants.cookies.end()) {
          continue;
        }
        if (!kept.empty()) kept += "; ";
        kept += pair;
      }
      if (!kept.empty()) out.append(header.name).append(": ").append(kept).append("\r\n");
      continue;
    }
    out.append(header.name).append(": ").append(header.value).append("\r\n");
  }
  out += upgrade ? "Connection: Upgrade\r\n" : "Connection: close\r\n";
  return out + "\r\n";
}

PreviewResponseHead parse_preview_response_head(std::string_view bytes) {
  std::size_t end = bytes.find("\r\n\r\n");
  std::string_view head_bytes = bytes.substr(0, end == std::string_view::npos ? bytes.size() : end);
  if (http1::bare_line_break(head_bytes.substr(0, kMaxPreviewResponseHead)) !=
      std::string_view::npos) {
    return malformed("a line of its response head ends without CRLF (a bare LF or CR)");
  }
  if (end == std::string_view::npos) {
    if (bytes.size() >= kMaxPreviewResponseHead)
      return malformed("its response head is over 64 KiB");
    return {};
  }
  if (end + 4 > kMaxPreviewResponseHead) return malformed("its response head is over 64 KiB");
  PreviewResponseHead response;
  response.length = end + 4;
  std::string_view head = bytes.substr(0, end + 2);
  std::size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  // HTTP/1.x SP 3DIGIT SP reason (RFC 9112 section 4); the reason may be empty.
  std::string_view version = line.substr(0, 8);
  if ((version != "HTTP/1.1" && version != "HTTP/1.0") || line.size() < 12 || line[8] != ' ' ||
      !std::all_of(line.begin() + 9, line.begin() + 12,
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      (line.size() > 12 && line[12] != ' ') || http1::has_control_character(line)) {
    return malformed("a malformed status line");
  }
  response.version = std::string(version);
  response.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  response.reason = std::string(line.size() > 13 ? line.substr(13) : std::string_view());
  for (std::size_t at = line_end + 2; at < head.size();) {
    std::size_t next = head.find("\r\n", at);
    std::string_view header = head.substr(at, next - at);
    at = next + 2;
    if (response.headers.size() >= http1::kMaxHeaders)
      return malformed("more than 100 header lines");
    if (header.starts_with(' ') || header.starts_with('\t')) {
      return malformed("a folded header line (obsolete line folding)");
    }
    std::size_t colon = header.find(':');
    if (colon == std::string_view::npos || !http1::is_token(header.substr(0, colon))) {
      return malformed("a malformed header line");
    }
    std::string_view value = trimmed(header.substr(colon + 1));
    if (http1::has_control_character(value)) return malformed("a control character in a header");
    response.headers.push_back({std::string(header.substr(0, colon)), std::string(value)});
  }
  response.state = PreviewResponseHead::State::kComplete;
  return response;
}

std::string preview_response_head(const PreviewResponseHead& head, PreviewGrants& grants) {
  std::string out = head.version + " " + std::to_string(head.status) + " " + head.reason + "\r\n";
  bool interim = head.status >= 100 && head.status < 200;
  for (const auto& header : head.headers) {
    std::string name = to_lower(header.name);
    // 101 Switching Protocols names the new protocol in Connection: Upgrade.
    if (hop_by_hop(name) && head.status != 101) continue;
    if (name == "www-authenticate") grants.authorization = true;
    if (name == "set-cookie") {
      // A nameless cookie goes too: a browser sends one as its bare value, which may read as
      // any name=value, a token cookie's included.
      std::string pair = set_cookie_pair(header.value);
      if (pair.empty() || token_cookie(pair)) continue;
      if (pair.size() <= kMaxPreviewCookie &&
          std::find(grants.cookies.begin(), grants.cookies.end(), pair) == grants.cookies.end()) {
        grants.cookies.push_back(std::move(pair));
        auto bytes = [&] {
          std::size_t total = 0;
          for (const auto& kept : grants.cookies) total += kept.size();
          return total;
        };
        while (grants.cookies.size() > kMaxPreviewCookies || bytes() > kMaxPreviewCookieBytes) {
          grants.cookies.pop_front();
        }
      }
    }
    out.append(header.name).append(": ").append(header.value).append("\r\n");
  }
  if (!interim) out += "Connection: close\r\n";
  return out + "\r\n";
}

}  // namespace paddock::net::preview
