#include "runtime/kube/websocket_frames.h"

#include <openssl/sha.h>

#include "core/base64.h"

namespace paddock::kube {
namespace {

bool is_control(Opcode opcode) {
  return (static_cast<std::uint8_t>(opcode) & 0x8) != 0;
}

bool is_known(std::uint8_t opcode) {
  return opcode <= 0x2 || (opcode >= 0x8 && opcode <= 0xA);
}

}  // namespace

std::string encode_client_frame(const Frame& frame, const std::array<std::uint8_t, 4>& mask) {
  std::string out;
  out += static_cast<char>((frame.final ? 0x80 : 0x00) | static_cast<std::uint8_t>(frame.opcode));
  std::uint64_t length = frame.payload.size();
  if (length < 126) {
    out += static_cast<char>(0x80 | length);
  } else if (length <= 0xFFFF) {
    out += static_cast<char>(0x80 | 126);
    out += static_cast<char>((length >> 8) & 0xFF);
    out += static_cast<char>(length & 0xFF);
  } else {
    out += static_cast<char>(0x80 | 127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((length >> shift) & 0xFF);
  }
  for (std::uint8_t byte : mask) out += static_cast<char>(byte);
  for (std::size_t i = 0; i < frame.payload.size(); ++i) {
    out += static_cast<char>(static_cast<std::uint8_t>(frame.payload[i]) ^ mask[i % 4]);
  }
  return out;
}

core::Result<std::optional<Frame>> FrameReader::next() {
  for (;;) {
    if (buffer_.size() < 2) return std::optional<Frame>{};
    auto byte = [&](std::size_t at) { return static_cast<std::uint8_t>(buffer_[at]); };
    bool final = (byte(0) & 0x80) != 0;
    if ((byte(0) & 0x70) != 0)
      return core::invalid_input("a WebSocket frame with reserved bits set");
    std::uint8_t code = byte(0) & 0x0F;
    if (!is_known(code)) return core::invalid_input("a WebSocket frame with an unknown opcode");
    if ((byte(1) & 0x80) != 0)
      return core::invalid_input("a masked WebSocket frame from the server");
    std::uint64_t length = byte(1) & 0x7F;
    std::size_t header = 2;
    if (length == 126) {
      if (buffer_.size() < 4) return std::optional<Frame>{};
      length = (std::uint64_t{byte(2)} << 8) | byte(3);
      header = 4;
    } else if (length == 127) {
      if (buffer_.size() < 10) return std::optional<Frame>{};
      length = 0;
      for (std::size_t i = 2; i < 10; ++i) length = (length << 8) | byte(i);
      header = 10;
    }
    auto opcode = static_cast<Opcode>(code);
    if (is_control(opcode) && (length > 125 || !final)) {
      return core::invalid_input("a fragmented or oversized WebSocket control frame");
    }
    std::uint64_t joined = partial_ ? partial_->payload.size() : 0;
    if (length > max_message_bytes_ - std::min(joined, max_message_bytes_)) {
      return core::Error{
          EFBIG, "a WebSocket message over " + std::to_string(max_message_bytes_) + " bytes"};
    }
    if (buffer_.size() - header < length) return std::optional<Frame>{};
    std::string payload = buffer_.substr(header, static_cast<std::size_t>(length));
    buffer_.erase(0, header + static_cast<std::size_t>(length));
    if (is_control(opcode)) return std::optional<Frame>{Frame{opcode, true, std::move(payload)}};
    if (opcode == Opcode::kContinuation) {
      if (!partial_)
        return core::invalid_input("a WebSocket continuation frame with nothing to continue");
      partial_->payload += payload;
    } else {
      if (partial_) return core::invalid_input("a new WebSocket message inside a fragmented one");
      partial_ = Frame{opcode, false, std::move(payload)};
    }
    if (final) {
      Frame done = std::move(*partial_);
      done.final = true;
      partial_.reset();
      return std::optional<Frame>{std::move(done)};
    }
  }
}

std::string websocket_accept(const std::string& key) {
  std::string text = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return core::base64_encode(
      std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

}  // namespace paddock::kube
