#pragma once

// Docker's multiplexed stream (an exec or attach without a TTY): frames of an 8-byte header
// (stream: 1 stdout, 2 stderr; 3 bytes zero; big-endian 32-bit length) and the payload. Chunks
// arrive cut anywhere; the demultiplexer keeps the partial frame between them.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace paddock::engine {

class Demultiplexer {
 public:
  using Sink = std::function<void(int stream, std::string_view payload)>;
  explicit Demultiplexer(Sink sink) : sink_(std::move(sink)) {}

  void feed(std::string_view chunk);

 private:
  Sink sink_;
  std::string header_;           // the part of a header received so far
  std::uint32_t remaining_ = 0;  // payload bytes still to come for the current frame
  int stream_ = 0;
};

}  // namespace paddock::engine
