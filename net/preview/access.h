#pragma once

// Who may open a preview (net/preview/forwarder.h) over HTTP: the pure part, kept apart from
// any socket so that it is unit-tested (and can be fuzzed) on its own.
//
// A preview's URL carries a token (128 random bits): http://127.0.0.1:PORT/?paddock_preview=T.
// The first request that brings it is answered with a redirect to the same path without it and
// a cookie (paddock_preview_PORT=T; HttpOnly; SameSite=Strict; Path=/), so that the token
// leaves the address bar and every later request of the browser carries it. The relay carries
// one request per connection (net/preview/headers.h), so every request's head is judged; a
// WebSocket's connection is a byte relay once its server answers 101. A head passes when:
// - its Host is 127.0.0.1:PORT or localhost:PORT, else 421: a page
//   whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name;
// - it carries the cookie with the token (compared in constant time), or the token in its
//   query (then it gets the redirect and the connection ends), else 403.
// The head is read by the proxy's strict parser (net/http1/request_head.h, origin form): a
// head longer than kMaxPreviewHead gets 431, and one it refuses (a bare LF, a folded line, two
// Host headers or none, a control character, not HTTP/1.x) 400. A head that passes goes to
// the sandbox rebuilt from that reading (net/preview/headers.h), never as it came.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "net/http1/request_head.h"

namespace paddock::net::preview {

inline constexpr std::size_t kMaxPreviewHead = http1::kMaxRequestHead;
inline constexpr std::string_view kPreviewTokenParameter = "paddock_preview";

// 128 bits from getrandom, as 32 lower-case hex digits.
core::Result<std::string> new_preview_token();

// The cookie's name for the preview on `host_port`: one per port, so that two previews open in
// one browser keep their own.
std::string preview_cookie_name(std::uint16_t host_port);

// The URL to give the user.
std::string preview_url(std::uint16_t host_port, std::string_view token);

struct PreviewVerdict {
  enum class Kind {
    kNeedMore,  // no complete head yet
    kForward,   // relay the request: `head`, rebuilt, then its body
    kRedirect,  // send `response` (the redirect with the cookie) and close
    kRefuse,    // send `response` (a short text naming why) and close
  };
  Kind kind = Kind::kNeedMore;
  std::string response;
  std::string reason;       // for the record: why it was refused
  http1::RequestHead head;  // kForward: the request's head as the strict parser read it
};

// Judges the first bytes a client sent on a connection to the preview on `host_port`.
PreviewVerdict judge_preview_request(std::string_view bytes, std::uint16_t host_port,
                                     std::string_view token);

// A preview's response with `status` (e.g. "403 Forbidden") and a one-line text body.
std::string preview_response(std::string_view status, std::string_view text);

}  // namespace paddock::net::preview
