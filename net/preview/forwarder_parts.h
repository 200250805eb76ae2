#pragma once

// The preview forwarder's state, as its loop (forwarder.cc), its way into the sandbox
// (sandbox_sockets.cc) and its relay (relay.cc) share it: private to the forwarder.

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "core/unique_fd.h"
#include "net/http1/body_framing.h"
#include "net/preview/forwarder.h"
#include "net/preview/headers.h"

namespace paddock::net::preview {

using Clock = std::chrono::steady_clock;
inline constexpr std::chrono::seconds kReplyDeadline{5};
inline constexpr std::size_t kRefusalsKept = 64;

// Bytes on their way in one direction: at most kPreviewBuffer waiting (a rebuilt head may
// take it past that for a moment: then there is no room until it is sent).
struct Pending {
  std::string bytes;
  std::size_t sent = 0;
  [[nodiscard]] std::size_t room() const {
    std::size_t waiting = bytes.size() - sent;
    return waiting >= kPreviewBuffer ? 0 : kPreviewBuffer - waiting;
  }
  [[nodiscard]] bool empty() const { return sent == bytes.size(); }
};

// Reads what `from` has, at most `most` bytes, into `into`; false on an error that ends the
// connection. `moved` counts the bytes.
bool receive(int from, std::string& into, std::size_t most, bool& eof, std::uint64_t& moved);
// Reads what `from` has, up to the room left; false on an error that ends the connection.
bool pump(int from, Pending& into, bool& eof, std::uint64_t& moved);
// Writes what is waiting to `to` as far as it takes it; false on an error.
bool flush(int to, Pending& out, std::uint64_t& moved);

// 127.0.0.1:`port`.
sockaddr_in loopback(std::uint16_t port);

struct PreviewForwarder::Group {
  core::UniqueFd factory;
  std::deque<std::uint64_t> waiting;  // connections asking, in the order init answers
};

struct PreviewForwarder::Preview {
  std::string group;
  std::uint16_t sandbox_port = 0;
  std::uint16_t host_port = 0;
  PreviewProtocol protocol = PreviewProtocol::kHttp;
  std::string token;
  core::UniqueFd listener;
  std::optional<std::pair<bool, std::string>> probe;  // accepting, why not
  PreviewGrants grants;  // HTTP: what its server set (net/preview/headers.h)
};

struct PreviewForwarder::Connection {
  enum class State { kHead, kReply, kWaitSocket, kConnecting, kRelay };
  std::uint64_t id = 0;
  std::uint64_t preview = 0;
  State state = State::kHead;
  bool probe = false;  // open()'s: does anything accept?
  bool done = false;
  core::UniqueFd client, upstream;
  Pending to_sandbox, to_client;
  bool client_eof = false, sandbox_eof = false;
  bool sandbox_shut = false, client_shut = false;
  // kRelay of HTTP: one request per connection (net/preview/headers.h). Its body goes
  // through `body`; once it is whole the client's later bytes are not relayed. The sandbox's
  // bytes are read into `response_head` until the response's head is whole and rebuilt. `raw`:
  // a byte relay both ways (plain TCP, or a WebSocket once its server answered 101).
  bool raw = false;
  bool upgrade = false;  // the request asked for another protocol
  std::optional<http1::BodyFraming> body;
  bool request_done = false;
  bool response_head_done = false;
  std::string response_head;
  std::uint64_t moved = 0;  // bytes either way, for the idle deadline
  Clock::time_point deadline{};
};

}  // namespace paddock::net::preview
