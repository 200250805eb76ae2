#pragma once

// Where an HTTP/1.1 request's body ends (RFC 9112 sections 6 and 7.1): after Content-Length
// bytes, or after the last chunk of a chunked body and its trailer. The egress proxy frames
// every request a sandbox sends through an intercepted TLS connection, so that it reads the head
// of each next request on a kept-alive connection rather than passing it on unread. Bytes arrive
// in pieces of any size; a piece may end anywhere, a chunk-size line in two halves included.
// Strict: a bare LF, a chunk size that is not hex or overflows, a chunk's data not followed by
// CRLF, or a line or trailer over its bound is malformed, never guessed at.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace paddock::net::http1 {

inline constexpr std::size_t kMaxChunkLine = 4096;          // a chunk-size line, extensions too
inline constexpr std::size_t kMaxChunkTrailer = 16 * 1024;  // the trailer's lines together

class BodyFraming {
 public:
  enum class State { kMore, kDone, kMalformed };

  static BodyFraming sized(std::uint64_t length);
  static BodyFraming chunked();

  // Takes from the front of `bytes` what belongs to the body, and returns how many bytes that is
  // (all of them while the body goes on). The body's content (chunked: decoded, without sizes
  // and trailer) is appended to `content` when it is given.
  std::size_t take(std::string_view bytes, std::string* content = nullptr);
  [[nodiscard]] State state() const { return state_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  enum class Part { kSized, kSizeLine, kData, kDataEnd, kTrailer, kDone };
  BodyFraming() = default;
  // Consumes one line (up to its CRLF) into line_; true once it is whole.
  bool line(std::string_view bytes, std::size_t& at, std::size_t bound);
  void fail(const char* why);
  bool chunk_size();  // line_ as a chunk-size line

  State state_ = State::kMore;
  Part part_ = Part::kSized;
  std::uint64_t left_ = 0;  // of the sized body, or of the chunk's data
  std::string line_;
  std::size_t trailer_bytes_ = 0;
  std::string error_;
};

}  // namespace paddock::net::http1
