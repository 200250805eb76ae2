#include "net/http1/head_lines.h"

namespace paddock::net::http1 {
std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

HeadEnd find_head_end(std::string_view bytes, std::size_t bound, std::string_view what) {
  std::size_t end = bytes.find("\r\n\r\n");
  std::string over = std::string(what) + " is over " + std::to_string(bound / 1024) + " KiB";
  std::string_view head = bytes.substr(0, end == std::string_view::npos ? bytes.size() : end);
  if (bare_line_break(head.substr(0, bound)) != std::string_view::npos) {
    return malformed_head<HeadEnd>("a line of " + std::string(what) +
                                   " ends without CRLF (a bare LF or CR)");
  }
  if (end == std::string_view::npos) {
    if (bytes.size() >= bound) return malformed_head<HeadEnd>(over);
    return {};
  }
  if (end + 4 > bound) return malformed_head<HeadEnd>(over);
  HeadEnd complete;
  complete.state = HeadEnd::State::kComplete;
  complete.length = end + 4;
  return complete;
}

std::string parse_header_lines(std::string_view lines, std::vector<RequestHead::Header>& headers) {
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t next = lines.find("\r\n", at);
    std::string_view line = lines.substr(at, next - at);
    at = next + 2;
    if (headers.size() >= kMaxHeaders) return "more than 100 header lines";
    if (line.starts_with(' ') || line.starts_with('\t')) {
      return "a folded header line (obsolete line folding)";
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
      return "a malformed header line";
    }
    std::string_view value = trim_blanks(line.substr(colon + 1));
    if (has_control_character(value)) return "a control character in a header";
    headers.push_back({std::string(line.substr(0, colon)), std::string(value)});
  }
  return {};
}

}  // namespace paddock::net::http1
