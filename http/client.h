#pragma once

// The one HTTP client paddock has, over libcurl: the registry (rootfs/registry_client), the
// Docker and Podman Engine API (runtime/engine/engine_client), Kubernetes REST and the WebSocket
// upgrade of its exec (runtime/kube). Each of them says what to send and words the answer for
// its users; how to send it, stream it, cap it, stop it and retry it lives here, once.
//
// A Client is one connection (one easy handle, reused between requests), used by one thread at
// a time.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "http/curl_handle.h"

namespace paddock::http {

struct Tls {
  std::string ca_file;  // trust this CA instead of the system's (empty: the system's)
  std::string ca_pem;   // or this one, as PEM (no temp files)
  std::string client_cert_file;
  std::string client_key_file;
  std::string client_cert_pem;
  std::string client_key_pem;
  bool verify = true;  // false only where the user said so (--insecure, a kubeconfig)
};

struct Request {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::optional<std::string> body;   // sent as it is
  std::string unix_socket;           // connect there instead (a local engine's API)
  Tls tls;
  std::optional<std::pair<std::string, std::string>> basic_auth;  // user, password
  std::string protocols = "http,https";
  // Redirects are followed (at most 10), never from HTTPS to plain HTTP. curl drops custom
  // Authorization headers when a redirect leaves the host.
  bool follow_redirects = false;
  long connect_timeout_seconds = 10;
  long timeout_seconds = 0;                  // the whole exchange; 0: no limit
  bool abort_when_stalled = false;           // under 1 byte/s for a minute: a transport failure
  std::uint64_t max_body_bytes = 64u << 20;  // of a successful answer kept in `body`
  std::uint64_t max_error_body_bytes = 64u << 10;  // of any other answer
  // A successful (2xx) answer's body goes here, chunk by chunk, instead of into `body`; an
  // error stops the transfer and is perform()'s. `stream_every_answer`: every answer's body.
  std::function<core::Status(std::string_view)> on_data;
  bool stream_every_answer = false;
  // Asked while the transfer runs: false abandons it (Response::interrupted).
  std::function<bool()> keep_going;
};

struct Response {
  long status = 0;  // 0 when no answer came
  std::string body;
  // Header names in lower case; the last answer's, when redirects were followed.
  std::map<std::string, std::string> headers;
  // Not CURLE_OK: the exchange itself failed (connection, TLS, timeout, reset). Callers word
  // it for their users, and may retry (retryable()).
  CURLcode transport = CURLE_OK;
  std::string transport_message;
  bool interrupted = false;  // keep_going said stop

  [[nodiscard]] bool answered() const { return transport == CURLE_OK && !interrupted; }
  [[nodiscard]] std::string header(const std::string& name) const;
};

class Client {
 public:
  static core::Result<Client> create();

  // One exchange. An Error only for what is neither an answer nor a transport failure: the
  // on_data sink's own error, or an answer larger than the request allows (EFBIG).
  core::Result<Response> perform(const Request& request);

  // Connects to request.url and stops there (for an upgrade the caller speaks itself, such as
  // WebSocket): then send() and receive() move raw bytes. A transport failure is an error.
  core::Status connect(const Request& request);
  // All of `bytes`, waiting while the socket is full.
  core::Status send(std::string_view bytes);
  // What is there, waiting up to `timeout_ms` for something: false when nothing came;
  // EPIPE when the peer closed.
  core::Result<bool> receive(int timeout_ms, std::string& into);

  // `text` percent-encoded for a query string.
  std::string escape(const std::string& text);

 private:
  explicit Client(CurlHandle handle) : handle_(std::move(handle)) {}
  CurlHandle handle_;
};

// Whether another try may help: a transport failure of the passing kind (refused, reset,
// timed out, a name not resolved yet), or a 5xx or 429 answer.
bool retryable(const Response& response);

// How long to wait before try `attempt` + 1 (0-based): 250 ms, doubling.
int backoff_ms(int attempt);

// perform() up to `attempts` times while retryable(), waiting backoff_ms() between tries;
// `before_each` runs before every try (to drop what a streamed try delivered). The last
// response is returned, whatever it is.
core::Result<Response> perform_with_retries(Client& client, const Request& request, int attempts,
                                            const std::function<core::Status()>& before_each = {});

}  // namespace paddock::http
