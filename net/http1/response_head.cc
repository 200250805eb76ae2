#include "net/http1/response_head.h"

#include <algorithm>

namespace paddock::net::http1 {
namespace {

// HTTP/1.x SP 3DIGIT SP reason (RFC 9112 section 4); the reason may be empty.
bool read_status_line(std::string_view line, ResponseHead& response) {
  std::string_view version = line.substr(0, 8);
  if ((version != "HTTP/1.1" && version != "HTTP/1.0") || line.size() < 12 || line[8] != ' ' ||
      !std::all_of(line.begin() + 9, line.begin() + 12,
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      (line.size() > 12 && line[12] != ' ') || has_control_character(line)) {
    return false;
  }
  response.version = std::string(version);
  response.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  response.reason = std::string(line.size() > 13 ? line.substr(13) : std::string_view());
  return true;
}

}  // namespace

ResponseHead parse_response_head(std::string_view bytes, std::size_t bound) {
  HeadEnd end = find_head_end(bytes, bound, "its response head");
  if (end.state == HeadEnd::State::kMalformed)
    return malformed_head<ResponseHead>(std::move(end.error));
  if (end.state == HeadEnd::State::kNeedMore) return {};
  ResponseHead response;
  response.length = end.length;
  std::string_view head = bytes.substr(0, end.length - 2);
  std::size_t line_end = head.find("\r\n");
  if (!read_status_line(head.substr(0, line_end), response)) {
    return malformed_head<ResponseHead>("a malformed status line");
  }
  std::string error = parse_header_lines(head.substr(line_end + 2), response.headers);
  if (!error.empty()) return malformed_head<ResponseHead>(std::move(error));
  response.state = ResponseHead::State::kComplete;
  return response;
}

}  // namespace paddock::net::http1
