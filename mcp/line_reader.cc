#include "mcp/line_reader.h"

#include <unistd.h>

#include <cerrno>

namespace paddock::mcp {

bool LineReader::fill() {
  char chunk[1 << 16];
  ssize_t got;
  while ((got = read(fd_, chunk, sizeof chunk)) < 0 && errno == EINTR) {
  }
  if (got <= 0) {
    if (got < 0 && errno == EAGAIN) return true;
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(got));
  return true;
}

std::optional<LineReader::Line> LineReader::next() {
  for (;;) {
    std::size_t newline = buffer_.find('\n', scanned_);
    if (newline == std::string::npos) {
      scanned_ = buffer_.size();
      if (buffer_.size() > max_line_) {
        // Too long already: forget it, and keep forgetting until its end.
        skipping_ = true;
        buffer_.clear();
        scanned_ = 0;
      }
      if (eof_ && !buffer_.empty() && !skipping_) {
        // A last line without a newline still counts, by the same rules as the others.
        buffer_ += '\n';
        continue;
      }
      if (eof_ && skipping_) {
        skipping_ = false;
        return Line{{}, true};
      }
      return std::nullopt;
    }
    std::string text = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    scanned_ = 0;
    if (skipping_) {
      skipping_ = false;
      return Line{{}, true};
    }
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.size() > max_line_) return Line{{}, true};
    if (text.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are nothing
    return Line{std::move(text), false};
  }
}

}  // namespace paddock::mcp
