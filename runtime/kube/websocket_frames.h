#pragma once

// RFC 6455 frames, as a client writes and reads them: what Kubernetes' exec and attach speak
// (libcurl 7.88 as Debian 12 builds it has no WebSocket support). Pure: bytes in, frames out.
// A client masks every frame it sends (RFC 6455 5.3); a server never masks.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::kube {

enum class Opcode : std::uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

struct Frame {
  Opcode opcode = Opcode::kBinary;
  bool final = true;
  std::string payload;
};

// One frame as a client sends it, masked with `mask`.
std::string encode_client_frame(const Frame& frame, const std::array<std::uint8_t, 4>& mask);

// Reads frames from a byte stream that arrives in pieces; messages split over continuation
// frames are joined. Control frames (close, ping, pong) come out as they arrive.
class FrameReader {
 public:
  explicit FrameReader(std::uint64_t max_message_bytes = 64u << 20)
      : max_message_bytes_(max_message_bytes) {}

  void feed(std::string_view bytes) { buffer_.append(bytes); }

  // The next whole message or control frame, nothing when more bytes are needed, or an error
  // for what no server may send (a masked frame, a reserved opcode, an oversized message).
  core::Result<std::optional<Frame>> next();

 private:
  std::string buffer_;
  std::optional<Frame> partial_;  // a fragmented message being joined
  std::uint64_t max_message_bytes_;
};

// The Sec-WebSocket-Accept a server must answer to `key` (RFC 6455 4.2.2).
std::string websocket_accept(const std::string& key);

}  // namespace paddock::kube
