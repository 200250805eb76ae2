#include "runtime/kube/websocket_client.h"

#include <cctype>
#include <chrono>
#include <random>

#include "core/base64.h"
#include "runtime/kube/kube_client.h"

namespace paddock::kube {
namespace {

std::array<std::uint8_t, 4> random_mask() {
  static thread_local std::mt19937 random{std::random_device{}()};
  auto value = static_cast<std::uint32_t>(random());
  return {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8),
          static_cast<std::uint8_t>(value >> 16), static_cast<std::uint8_t>(value >> 24)};
}

}  // namespace

core::Result<std::unique_ptr<WebSocketConnection>> WebSocketConnection::open(
    const ClusterAccess& access, const std::string& path, const std::string& protocols) {
  std::unique_ptr<WebSocketConnection> connection(new WebSocketConnection);
  auto made = http::Client::create();
  if (!made) return made.error();
  connection->http_.emplace(std::move(*made));
  http::Request target;
  target.url = access.server + path;
  target.tls = cluster_tls(access);
  if (auto connected = connection->http_->connect(target); !connected) {
    return unreachable(access, connected.error().message);
  }
  std::string key_bytes(16, '\0');
  std::random_device random;
  for (char& c : key_bytes) c = static_cast<char>(random());
  std::string key = core::base64_encode(key_bytes);
  std::string host = access.server.substr(access.server.find("://") + 3);
  std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: " + host +
      "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
      "\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: " + protocols + "\r\n";
  if (!access.token.empty()) request += "Authorization: Bearer " + access.token + "\r\n";
  request += "\r\n";
  if (auto sent = connection->write_all(request); !sent) return sent.error();
  // The answer's head; what follows it is already WebSocket frames.
  std::string head;
  for (;;) {
    auto got = connection->read_some(10000, head);
    if (!got) return got.error();
    if (!*got) return core::Error{ETIMEDOUT, "the Kubernetes API did not answer the exec upgrade"};
    if (head.find("\r\n\r\n") != std::string::npos) break;
    if (head.size() > (64u << 10))
      return core::Error{EIO, "the Kubernetes API's answer is too long"};
  }
  std::size_t end = head.find("\r\n\r\n");
  std::string status_line = head.substr(0, head.find("\r\n"));
  if (status_line.find(" 101 ") == std::string::npos) {
    return core::Error{EIO, "the Kubernetes API refused the exec: " + status_line + " " +
                                head.substr(end + 4, 400)};
  }
  // Header names are case-insensitive; the accept value is not.
  std::string lower;
  for (char c : head.substr(0, end)) lower += static_cast<char>(std::tolower(c));
  if (head.find(websocket_accept(key)) == std::string::npos) {
    return core::Error{EIO,
                       "the Kubernetes API's WebSocket handshake is wrong (Sec-WebSocket-Accept)"};
  }
  if (std::size_t at = lower.find("sec-websocket-protocol:"); at != std::string::npos) {
    std::size_t value = head.find_first_not_of(' ', at + 23);
    connection->protocol_ = head.substr(value, head.find("\r\n", value) - value);
  }
  connection->reader_.feed(std::string_view(head).substr(end + 4));
  return connection;
}

core::Status WebSocketConnection::write_all(std::string_view bytes) {
  if (auto sent = http_->send(bytes); !sent) {
    return core::Error{EIO, "sending to the Kubernetes API: " + sent.error().message};
  }
  return {};
}

core::Result<bool> WebSocketConnection::read_some(int timeout_ms, std::string& into) {
  auto got = http_->receive(timeout_ms, into);
  if (!got && got.error().code == EPIPE) {
    return core::Error{EPIPE, "the Kubernetes API closed the connection"};
  }
  if (!got) return core::Error{EIO, "reading from the Kubernetes API: " + got.error().message};
  return got;
}

core::Status WebSocketConnection::send(Opcode opcode, std::string_view payload) {
  return write_all(encode_client_frame({opcode, true, std::string(payload)}, random_mask()));
}

core::Result<std::optional<Frame>> WebSocketConnection::receive(int timeout_ms) {
  for (;;) {
    auto frame = reader_.next();
    if (!frame) return frame.error();
    if (*frame) {
      if ((*frame)->opcode == Opcode::kPing) {
        if (auto pong = send(Opcode::kPong, (*frame)->payload); !pong) return pong.error();
        continue;
      }
      if ((*frame)->opcode == Opcode::kClose) (void)send(Opcode::kClose, (*frame)->payload);
      return frame;
    }
    std::string more;
    auto got = read_some(timeout_ms, more);
    if (!got) return got.error();
    if (!*got) return std::optional<Frame>{};
    reader_.feed(more);
  }
}

}  // namespace paddock::kube
