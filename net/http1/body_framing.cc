#include "net/http1/body_framing.h"

#include <algorithm>

namespace paddock::net::http1 {

BodyFraming BodyFraming::sized(std::uint64_t length) {
  BodyFraming framing;
  framing.part_ = Part::kSized;
  framing.left_ = length;
  if (length == 0) {
    framing.part_ = Part::kDone;
    framing.state_ = State::kDone;
  }
  return framing;
}

BodyFraming BodyFraming::chunked() {
  BodyFraming framing;
  framing.part_ = Part::kSizeLine;
  return framing;
}

void BodyFraming::fail(const char* why) {
  state_ = State::kMalformed;
  error_ = why;
}

bool BodyFraming::line(std::string_view bytes, std::size_t& at, std::size_t bound) {
  while (at < bytes.size()) {
    char c = bytes[at++];
    if (!line_.empty() && line_.back() == '\r') {
      if (c != '\n') {
        fail("a chunked body's line ends in a bare CR");
        return false;
      }
      line_.pop_back();
      return true;
    }
    if (c == '\n') {
      fail("a chunked body's line ends in a bare LF");
      return false;
    }
    if (line_.size() >= bound) {
      fail("a chunked body's line is too long");
      return false;
    }
    line_ += c;
  }
  return false;
}

bool BodyFraming::chunk_size() {
  // chunk-size [ chunk-ext ]: hex digits, then ';' and extensions, which are passed on unread.
  std::string_view text = line_;
  std::size_t digits = std::min(text.find_first_not_of("0123456789abcdefABCDEF"), text.size());
  std::string_view rest = text.substr(digits);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (digits == 0 || (!rest.empty() && rest.front() != ';')) {
    fail("a chunked body's chunk size is not hexadecimal");
    return false;
  }
  std::string_view hex = text.substr(0, digits);
  while (hex.size() > 1 && hex.front() == '0') hex.remove_prefix(1);
  if (hex.size() > 15) {  // 60 bits: no overflow, and far beyond any real body
    fail("a chunked body's chunk size is too large");
    return false;
  }
  std::uint64_t size = 0;
  for (char c : hex) {
    int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    size = size * 16 + static_cast<std::uint64_t>(digit);
  }
  left_ = size;
  return true;
}

std::size_t BodyFraming::take(std::string_view bytes, std::string* content) {
  std::size_t at = 0;
  while (state_ == State::kMore && at < bytes.size()) {
    switch (part_) {
      case Part::kSized:
      case Part::kData: {
        std::size_t count =
            static_cast<std::size_t>(std::min<std::uint64_t>(left_, bytes.size() - at));
        if (content != nullptr) content->append(bytes.substr(at, count));
        at += count;
        left_ -= count;
        if (left_ > 0) break;
        if (part_ == Part::kSized) {
          part_ = Part::kDone;
          state_ = State::kDone;
        } else {
          part_ = Part::kDataEnd;
        }
        break;
      }
      case Part::kDataEnd: {
        // CRLF, perhaps split between two pieces: line_ holds the CR meanwhile.
        char expected = line_.empty() ? '\r' : '\n';
        if (bytes[at++] != expected) {
          fail("a chunk's data is not followed by CRLF");
          break;
        }
        if (expected == '\r') {
          line_ = "\r";
          break;
        }
        line_.clear();
        part_ = Part::kSizeLine;
        break;
      }
      case Part::kSizeLine:
        if (!line(bytes, at, kMaxChunkLine)) break;
        if (!chunk_size()) break;
        line_.clear();
        part_ = left_ == 0 ? Part::kTrailer : Part::kData;
        break;
      case Part::kTrailer: {
        std::size_t before = at;
        bool whole = line(bytes, at, kMaxChunkTrailer);
        trailer_bytes_ += at - before;
        if (state_ != State::kMore) break;
        if (trailer_bytes_ > kMaxChunkTrailer) {
          fail("a chunked body's trailer is over 16 KiB");
          break;
        }
        if (!whole) break;
        if (line_.empty()) {
          part_ = Part::kDone;
          state_ = State::kDone;
        }
        line_.clear();
        break;
      }
      case Part::kDone:
        state_ = State::kDone;
        break;
    }
  }
  return at;
}

}  // namespace paddock::net::http1
