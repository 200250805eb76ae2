#pragma once

// What every HTTP/1 head paddock reads has in common, requests' (net/http1/request_head.h) and
// responses' (net/http1/response_head.h) alike, read by the same strict rules (RFC 9112
// sections 2.2 and 5.2): where the head ends, and its header lines. A line that ends in a bare
// LF or a bare CR, a folded line, a control character in a value or a name that is not a token
// is malformed, never guessed at: the peer on the other side might read the same bytes
// otherwise, and act on a header the reader never saw. The rules themselves (is_token,
// bare_line_break, has_control_character) are request_head.h's.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/http1/request_head.h"

namespace paddock::net::http1 {

struct HeadEnd {
  enum class State {
    kNeedMore,  // no blank line yet (and under the bound)
    kComplete,
    kMalformed,  // `error` says why
  };
  State state = State::kNeedMore;
  std::string error;
  std::size_t length = 0;  // bytes of the head, its blank line included
};

// Without the blanks (spaces and tabs: RFC 9110's OWS) around it, as a header's value is read.
std::string_view trim_blanks(std::string_view text);

// A head of type `Head` (HeadEnd, RequestHead, ResponseHead) refused for `why`.
template <typename Head>
Head malformed_head(std::string why) {
  Head head;
  head.state = Head::State::kMalformed;
  head.error = std::move(why);
  return head;
}

// Where the head at the front of `bytes` ends, if it is within `bound` bytes. A bare line break
// is judged as soon as it arrives, not after a blank line that may never come. `what` names the
// head in the errors ("the request head").
HeadEnd find_head_end(std::string_view bytes, std::size_t bound, std::string_view what);

// Reads `lines` (header lines, each ending in CRLF, the blank line excluded) into `headers`, in
// order; the error, or empty. A response's lines are read as a request's: the type of a header
// line is RequestHead's.
std::string parse_header_lines(std::string_view lines, std::vector<RequestHead::Header>& headers);

}  // namespace paddock::net::http1
