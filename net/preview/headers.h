#pragma once

// What the relay of an HTTP preview (net/preview/forwarder.h) lets through of the heads it
// carries: the pure part, kept apart from any socket so that it is unit-tested on its own.
//
// A browser sends a host's cookies to every port of it (RFC 6265 section 8.5), so one that has
// several previews, or another local application, open on 127.0.0.1 sends all their cookies to
// each, the HttpOnly ones and the previews' tokens included. So the sandbox never gets the
// browser's bytes: it gets a request head rebuilt from what the strict parser read
// (net/http1/request_head.h), in which
// - Cookie keeps only the pairs, name and value alike, that this preview's own server set
//   (Set-Cookie): a value another port's page or server set under the same name is not sent;
// - Authorization is sent only once this preview's server has asked for it (WWW-Authenticate):
//   a browser's saved credentials for 127.0.0.1:PORT may be another server's that had the port
//   before;
// - Proxy-* is dropped, and Connection says close, so that each request comes on a connection
//   of its own and has its head judged and rebuilt (a WebSocket's keeps Connection: Upgrade,
//   and is a byte relay once the server answers 101).
// The browser gets a response head rebuilt the same way: no Set-Cookie whose name is a
// preview's token cookie's (paddock_preview...), so that no sandbox can overwrite another
// preview's cookie, and Connection: close.

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "net/http1/request_head.h"
#include "net/http1/response_head.h"

namespace paddock::net::preview {

// What a preview keeps of what its server set: at most kMaxPreviewCookies pairs and
// kMaxPreviewCookieBytes together (the oldest go first), each at most kMaxPreviewCookie bytes (a
// browser keeps no longer one); so a server's previews hold at most 2 MiB of it (64 previews).
inline constexpr std::size_t kMaxPreviewCookies = 64;
inline constexpr std::size_t kMaxPreviewCookie = 4096;
inline constexpr std::size_t kMaxPreviewCookieBytes = 32 * 1024;
// A response head from the sandbox's server, at most.
inline constexpr std::size_t kMaxPreviewResponseHead = 64 * 1024;

struct PreviewGrants {
  std::deque<std::string> cookies;  // "name=value" as its server set them, oldest first
  bool authorization = false;       // its server has sent WWW-Authenticate
};

// Whether the request asks for a WebSocket on its connection (Upgrade: websocket); an Upgrade
// to anything else (h2c) is dropped from what the sandbox gets, since the relay would then carry
// the connection's later requests unread.
bool asks_upgrade(const http1::RequestHead& head);

// The head to send the sandbox for a complete origin-form request head.
std::string preview_request_head(const http1::RequestHead& head, const PreviewGrants& grants);

using PreviewResponseHead = http1::ResponseHead;

// By the strict parser (net/http1/response_head.h), within kMaxPreviewResponseHead.
PreviewResponseHead parse_preview_response_head(std::string_view bytes);

// The head to send the browser for a complete response head; what the server set for its own
// preview goes into `grants`.
std::string preview_response_head(const PreviewResponseHead& head, PreviewGrants& grants);

}  // namespace paddock::net::preview
