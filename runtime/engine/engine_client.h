#pragma once

// The Docker Engine API (which Podman's service speaks too) over its unix socket, or over TCP
// with TLS as Docker's own client is configured (DOCKER_HOST, DOCKER_TLS_VERIFY,
// DOCKER_CERT_PATH), over http/. One client is one connection, used by one thread at a time.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "http/client.h"
#include "runtime/engine/engine_settings.h"

namespace paddock::engine {

struct Endpoint {
  std::string unix_socket;  // set for unix://
  std::string base_url;     // "http://localhost" over the socket, else http(s)://host:port
  std::string ca_file, cert_file, key_file;  // TLS, from DOCKER_CERT_PATH
  std::string description;                   // what error messages name: the socket or URL
};

// Where Docker listens: DOCKER_HOST, else /var/run/docker.sock.
core::Result<Endpoint> docker_endpoint(const EngineSettings& settings);
// Where Podman's service listens: CONTAINER_HOST, else the rootless socket
// ($XDG_RUNTIME_DIR/podman/podman.sock) for users and /run/podman/podman.sock for root.
core::Result<Endpoint> podman_endpoint(const EngineSettings& settings);
// An endpoint from a DOCKER_HOST-style address: unix:///path, tcp://host:port.
core::Result<Endpoint> endpoint_from(const std::string& address, bool tls_verify,
                                     const std::string& cert_path);

struct Response {
  long status = 0;
  std::string body;
};

class Client {
 public:
  explicit Client(Endpoint endpoint);
  ~Client() = default;
  Client(Client&&) noexcept = default;
  Client& operator=(Client&&) = delete;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  [[nodiscard]] const Endpoint& endpoint() const { return endpoint_; }

  // One request; `path` starts with "/" and gets the API version in front. A body is sent as
  // JSON. An unreachable engine is an error that names the socket or URL.
  core::Result<Response> request(const std::string& method, const std::string& path,
                                 const std::string& json_body = "");

  // A request whose response body is handed over as it arrives (exec output). `keep_going` is
  // asked several times a second; returning false abandons the transfer (the result is then
  // the status seen so far, with `interrupted` set).
  struct Streamed {
    long status = 0;
    bool interrupted = false;
  };
  core::Result<Streamed> stream(const std::string& method, const std::string& path,
                                const std::string& json_body,
                                const std::function<void(std::string_view)>& on_data,
                                const std::function<bool()>& keep_going);

 private:
  // One transfer: the body goes to `on_data` when there is one, else into `body`.
  core::Result<Streamed> perform(const std::string& method, const std::string& path,
                                 const std::string& json_body,
                                 const std::function<void(std::string_view)>& on_data,
                                 const std::function<bool()>& keep_going, std::string& body);
  // The error for a failed connection: what is wrong with the socket, or libcurl's reason.
  core::Error unreachable(const std::string& detail) const;

  std::optional<http::Client> http_;  // empty when libcurl could not make one
  Endpoint endpoint_;
};

// The API version paddock speaks: Docker 20.10 and newer, Podman's compat API.
inline constexpr const char* kApiVersion = "/v1.41";

}  // namespace paddock::engine
