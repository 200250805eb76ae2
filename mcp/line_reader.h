#pragma once

// Reads newline-delimited messages from an fd without ever holding more than `max_line` bytes of
// one line: a longer line is skipped to its end and reported as oversized, so a 100 MB line
// costs paddock nothing but the time to read it.

#include <cstddef>
#include <optional>
#include <string>

namespace paddock::mcp {

class LineReader {
 public:
  LineReader(int fd, std::size_t max_line) : fd_(fd), max_line_(max_line) {}

  struct Line {
    std::string text;
    bool oversized = false;  // text is empty; the line was longer than max_line
  };
  // The next complete line (without its newline), or nothing when input is exhausted for now
  // (call after poll says the fd is readable; `eof()` tells whether more can come).
  std::optional<Line> next();
  // Reads what the fd has (one read). False at end of file or on error.
  bool fill();
  [[nodiscard]] bool eof() const { return eof_; }

 private:
  int fd_;
  std::size_t max_line_;
  std::string buffer_;
  std::size_t scanned_ = 0;  // bytes of buffer_ already searched for a newline
  bool skipping_ = false;    // inside an oversized line
  bool eof_ = false;
};

}  // namespace paddock::mcp
