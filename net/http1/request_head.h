#pragma once

// The head of a request a sandboxed client sends to its HTTP proxy, and where it wants to go:
// CONNECT host:port for a tunnel (HTTPS), or an absolute http:// URL for plain HTTP, whose Host
// header must name the same place (else a request could be checked against one host and sent
// to another). Bounded: a head is at most kMaxRequestHead bytes and kMaxHeaders lines.
//
// Strict where an upstream server might read the same bytes otherwise (RFC 9112 sections 2.2,
// 5.2 and 6.3), because the proxy checks one reading and the server acts on its own: a line
// that ends in a bare LF, a bare CR, a folded line, a control character in a value, a request
// without exactly one Host, a repeated Content-Length or any Transfer-Encoding is refused, and
// what goes upstream is a head rebuilt from what was parsed (upstream_request_head), never the
// client's bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::net::http1 {

inline constexpr std::size_t kMaxRequestHead = 16 * 1024;
inline constexpr std::size_t kMaxHeaders = 100;

struct RequestHead {
  enum class State {
    kNeedMore,  // no blank line yet (and under kMaxRequestHead)
    kComplete,
    kMalformed,  // `error` says why, for the 400 the client gets
  };
  State state = State::kNeedMore;
  std::string error;
  std::size_t length = 0;  // bytes of the head, its blank line included
  std::string method;
  bool tunnel = false;  // CONNECT
  std::string host;     // lower case; an IPv6 address without brackets
  std::uint16_t port = 0;
  std::string path;     // for plain HTTP: the origin-form target to send upstream
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  struct Header {
    std::string name;   // as sent
    std::string value;  // without the blanks around it
  };
  std::vector<Header> headers;  // in order
  // For plain HTTP: the body's length, which must be given by Content-Length (or be none): the
  // proxy forwards one request at a time, so that it checks the head of every request on a
  // connection, and a chunked body would hide where the next one starts.
  std::uint64_t content_length = 0;
  // Origin form only: the body is chunked (Transfer-Encoding: chunked, and nothing else).
  bool chunked = false;
};

// How a request names where it goes.
enum class RequestForm {
  // To the proxy: CONNECT host:port, or an absolute http:// URL whose Host agrees.
  kProxy,
  // Inside a TLS connection the proxy terminates (brokered secrets): "/path" and a Host header,
  // which gives `host` and `port` (443 unless it names one). A body framed by Content-Length or
  // by chunked alone (net/http1/body_framing.h), never both.
  kOrigin,
};

RequestHead parse_request_head(std::string_view bytes, RequestForm form = RequestForm::kProxy);

// What the proxy sends upstream for a complete plain-HTTP head: the request line in origin form
// and the parsed headers but Proxy-*, each as "Name: value", CRLF after every line.
std::string upstream_request_head(const RequestHead& head);

// The strict rules this parser keeps, for the other heads paddock reads (a preview's response
// heads, net/preview/headers.h): a token (a method, a header's name; RFC 9110 section 5.6.2);
// where the first line break that is not CRLF is (a bare LF or CR), or npos, a CR at the very
// end excepted (its LF may come); a control character other than a tab in a field's value.
bool is_token(std::string_view text);
std::size_t bare_line_break(std::string_view bytes);
bool has_control_character(std::string_view text);

}  // namespace paddock::net::http1
