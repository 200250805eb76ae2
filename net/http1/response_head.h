#pragma once

// The head of a response paddock relays (a preview's server's, net/preview/headers.h), read as
// strictly as a request's (net/http1/head_lines.h): a bare LF or CR, a folded line, a control
// character or a malformed status line is malformed, never guessed at, since a browser might
// read it otherwise and see a header the relay did not (a Set-Cookie).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "net/http1/head_lines.h"

namespace paddock::net::http1 {

struct ResponseHead {
  enum class State {
    kNeedMore,
    kComplete,
    kMalformed,  // `error` says why, for the 502 the client gets
  };
  State state = State::kNeedMore;
  std::string error;
  std::size_t length = 0;  // bytes of the head, its blank line included
  std::string version;     // "HTTP/1.1" or "HTTP/1.0"
  int status = 0;
  std::string reason;
  std::vector<RequestHead::Header> headers;  // in order
};

// The response head at the front of `bytes`, at most `bound` bytes long.
ResponseHead parse_response_head(std::string_view bytes, std::size_t bound);

}  // namespace paddock::net::http1
