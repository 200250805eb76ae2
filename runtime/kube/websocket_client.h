#pragma once

// A WebSocket client connection (RFC 6455) to the Kubernetes API server, for exec: libcurl
// makes the TCP and TLS connection (CONNECT_ONLY, with the cluster's CA, token or client
// certificate), paddock writes the upgrade request and the frames itself (websocket_frames.h).

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "http/client.h"
#include "runtime/kube/kubeconfig.h"
#include "runtime/kube/websocket_frames.h"

namespace paddock::kube {

class WebSocketConnection {
 public:
  // Connects to `path` (with its query) on the cluster's server and upgrades, offering the
  // comma-separated `protocols`. An answer other than 101 is an error carrying the API's
  // message.
  static core::Result<std::unique_ptr<WebSocketConnection>> open(const ClusterAccess& access,
                                                                 const std::string& path,
                                                                 const std::string& protocols);
  WebSocketConnection(const WebSocketConnection&) = delete;
  WebSocketConnection& operator=(const WebSocketConnection&) = delete;

  [[nodiscard]] const std::string& protocol() const { return protocol_; }

  core::Status send(Opcode opcode, std::string_view payload);
  // The next message or control frame; nothing when `timeout_ms` passed first. Pings are
  // answered here; a close frame is returned (and answered).
  core::Result<std::optional<Frame>> receive(int timeout_ms);

 private:
  WebSocketConnection() = default;
  core::Status write_all(std::string_view bytes);
  // Reads what is there (waiting up to `timeout_ms` for something); false when nothing came.
  core::Result<bool> read_some(int timeout_ms, std::string& into);

  std::optional<http::Client> http_;
  std::string protocol_;
  FrameReader reader_;
};

}  // namespace paddock::kube
