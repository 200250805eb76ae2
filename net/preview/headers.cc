#include "net/preview/headers.h"

#include <algorithm>

#include "core/text.h"
#include "net/http1/head_lines.h"
#include "net/preview/access.h"

namespace paddock::net::preview {
namespace {

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
  std::string_view name = http1::trim_blanks(pair.substr(0, equals));
  if (name.empty()) return {};
  return std::string(name) + "=" + std::string(http1::trim_blanks(pair.substr(equals + 1)));
}

}  // namespace

bool asks_upgrade(const http1::RequestHead& head) {
  return std::any_of(head.headers.begin(), head.headers.end(), [](const auto& header) {
    return core::to_lower(header.name) == "upgrade" && core::to_lower(header.value) == "websocket";
  });
}

std::string preview_request_head(const http1::RequestHead& head, const PreviewGrants& grants) {
  std::string out = head.method + " " + head.path + " " + head.version + "\r\n";
  bool upgrade = asks_upgrade(head);
  for (const auto& header : head.headers) {
    std::string name = core::to_lower(header.name);
    if (hop_by_hop(name)) continue;
    // Another protocol than a WebSocket's (h2c) would carry later requests past the relay.
    if (name == "upgrade" && !upgrade) continue;
    if (name == "authorization" && !grants.authorization) continue;
    if (name == "cookie") {
      std::string kept;
      std::string_view rest = header.value;
      while (!rest.empty()) {
        std::size_t end = rest.find(';');
        std::string_view pair = http1::trim_blanks(rest.substr(0, end));
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
  return http1::parse_response_head(bytes, kMaxPreviewResponseHead);
}

std::string preview_response_head(const PreviewResponseHead& head, PreviewGrants& grants) {
  std::string out = head.version + " " + std::to_string(head.status) + " " + head.reason + "\r\n";
  bool interim = head.status >= 100 && head.status < 200;
  for (const auto& header : head.headers) {
    std::string name = core::to_lower(header.name);
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
