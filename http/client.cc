#include "http/client.h"

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "core/text.h"

namespace paddock::http {
namespace {

// What one transfer's callbacks share.
struct Transfer {
  CURL* handle = nullptr;
  const Request* request = nullptr;
  Response* response = nullptr;
  core::Status sink_status;
  bool too_big = false;
};

long status_now(CURL* handle) {
  long status = 0;
  curl().easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  // Each answer of a redirect chain starts with its status line; keep the last one's headers.
  if (line.starts_with("HTTP/")) {
    transfer->response->headers.clear();
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    transfer->response->headers[core::to_lower(line.substr(0, colon))] =
        core::trim(line.substr(colon + 1));
  }
  return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const Request& request = *transfer->request;
  std::string_view chunk(data, size * count);
  bool success = status_now(transfer->handle) / 100 == 2;
  if (request.on_data && (success || request.stream_every_answer)) {
    transfer->sink_status = request.on_data(chunk);
    return transfer->sink_status ? chunk.size() : 0;
  }
  std::string& body = transfer->response->body;
  std::uint64_t limit = success ? request.max_body_bytes : request.max_error_body_bytes;
  if (body.size() + chunk.size() > limit) {
    transfer->too_big = true;
    return 0;
  }
  body.append(chunk);
  return chunk.size();
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->request->keep_going && !transfer->request->keep_going()) {
    transfer->response->interrupted = true;
    return 1;
  }
  return 0;
}

void set_blob(CURL* handle, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl().easy_setopt(handle, option, &blob);
}

void apply_tls(CURL* handle, const Tls& tls) {
  if (!tls.ca_file.empty()) curl().easy_setopt(handle, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.ca_pem.empty()) set_blob(handle, CURLOPT_CAINFO_BLOB, tls.ca_pem);
  if (!tls.client_cert_file.empty()) {
    curl().easy_setopt(handle, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
  }
  if (!tls.client_key_file.empty()) {
    curl().easy_setopt(handle, CURLOPT_SSLKEY, tls.client_key_file.c_str());
  }
  if (!tls.client_cert_pem.empty()) set_blob(handle, CURLOPT_SSLCERT_BLOB, tls.client_cert_pem);
  if (!tls.client_key_pem.empty()) set_blob(handle, CURLOPT_SSLKEY_BLOB, tls.client_key_pem);
  if (!tls.verify) {
    curl().easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
    curl().easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

// What every exchange and connection shares: where, how long, TLS.
void apply_connection(CURL* handle, const Request& request) {
  curl().easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl().easy_setopt(handle, CURLOPT_PROTOCOLS_STR, request.protocols.c_str());
  curl().easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(handle, CURLOPT_USERAGENT, "paddock");
  curl().easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_seconds);
  if (request.timeout_seconds > 0) {
    curl().easy_setopt(handle, CURLOPT_TIMEOUT, request.timeout_seconds);
  }
  if (!request.unix_socket.empty()) {
    curl().easy_setopt(handle, CURLOPT_UNIX_SOCKET_PATH, request.unix_socket.c_str());
  }
  apply_tls(handle, request.tls);
  if (request.basic_auth) {
    curl().easy_setopt(handle, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl().easy_setopt(handle, CURLOPT_USERNAME, request.basic_auth->first.c_str());
    curl().easy_setopt(handle, CURLOPT_PASSWORD, request.basic_auth->second.c_str());
  }
}

std::string message_of(CURLcode code, const char* error_buffer) {
  return error_buffer[0] != '\0' ? std::string(error_buffer) : curl().easy_strerror(code);
}

curl_socket_t active_socket(CURL* handle) {
  curl_socket_t socket = CURL_SOCKET_BAD;
  curl().easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket);
  return socket;
}

}  // namespace

std::string Response::header(const std::string& name) const {
  auto it = headers.find(core::to_lower(name));
  return it == headers.end() ? std::string() : it->second;
}

core::Result<Client> Client::create() {
  auto handle = new_handle();
  if (!handle) return handle.error();
  return Client(std::move(*handle));
}

core::Result<Response> Client::perform(const Request& request) {
  CURL* handle = handle_.get();
  curl().easy_reset(handle);  // the connection stays for the next exchange
  Response response;
  Transfer transfer{handle, &request, &response, {}, false};
  apply_connection(handle, request);
  if (request.method == "HEAD") {
    curl().easy_setopt(handle, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl().easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (request.body) {
    curl().easy_setopt(handle, CURLOPT_POSTFIELDS, request.body->c_str());
    curl().easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body->size()));
  }
  if (request.follow_redirects) {
    curl().easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl().easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
    bool https = request.url.starts_with("https:");
    curl().easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
  }
  if (request.abort_when_stalled) {
    curl().easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl().easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, 60L);
  }
  HeaderList headers;
  for (const auto& line : request.headers) {
    if (auto added = append_header(headers, line); !added) return added.error();
  }
  if (headers) curl().easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl().easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
  curl().easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl().easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl().easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl().easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl().easy_setopt(handle, CURLOPT_XFERINFODATA, &transfer);
  curl().easy_setopt(handle, CURLOPT_NOPROGRESS, request.keep_going ? 0L : 1L);
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl().easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);

  CURLcode code = curl().easy_perform(handle);
  // The buffer is this frame's: libcurl must not keep a pointer to it past the return.
  curl().easy_setopt(handle, CURLOPT_ERRORBUFFER, static_cast<char*>(nullptr));
  response.status = status_now(handle);
  if (code == CURLE_WRITE_ERROR && !transfer.sink_status) return transfer.sink_status.error();
  if (transfer.too_big) {
    std::uint64_t limit =
        response.status / 100 == 2 ? request.max_body_bytes : request.max_error_body_bytes;
    return core::Error{EFBIG, "the answer from " + request.url + " is larger than " +
                                  std::to_string(limit) + " bytes"};
  }
  if (code == CURLE_ABORTED_BY_CALLBACK && response.interrupted) return response;
  if (code != CURLE_OK) {
    response.transport = code;
    response.transport_message = message_of(code, error_buffer);
  }
  return response;
}

core::Status Client::connect(const Request& request) {
  CURL* handle = handle_.get();
  curl().easy_reset(handle);
  apply_connection(handle, request);
  curl().easy_setopt(handle, CURLOPT_CONNECT_ONLY, 1L);
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl().easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
  CURLcode code = curl().easy_perform(handle);
  // The handle lives on for send and receive, whose failures libcurl writes into the error
  // buffer: left pointing at this frame's, they would write over whatever stack is there then
  // (seen as "stack smashing detected" in a kubernetes exec stream).
  curl().easy_setopt(handle, CURLOPT_ERRORBUFFER, static_cast<char*>(nullptr));
  if (code != CURLE_OK) return core::Error{EHOSTUNREACH, message_of(code, error_buffer)};
  return {};
}

core::Status Client::send(std::string_view bytes) {
  CURL* handle = handle_.get();
  while (!bytes.empty()) {
    std::size_t sent = 0;
    CURLcode code = curl().easy_send(handle, bytes.data(), bytes.size(), &sent);
    if (code == CURLE_AGAIN) {
      pollfd writable{active_socket(handle), POLLOUT, 0};
      poll(&writable, 1, 1000);
      continue;
    }
    if (code != CURLE_OK)
      return core::Error{EIO, std::string("sending: ") + curl().easy_strerror(code)};
    bytes.remove_prefix(sent);
  }
  return {};
}

core::Result<bool> Client::receive(int timeout_ms, std::string& into) {
  CURL* handle = handle_.get();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    char buffer[65536];
    std::size_t got = 0;
    CURLcode code = curl().easy_recv(handle, buffer, sizeof buffer, &got);
    if (code == CURLE_OK && got > 0) {
      into.append(buffer, got);
      // Everything TLS has buffered, before poll could say there is nothing.
      while (curl().easy_recv(handle, buffer, sizeof buffer, &got) == CURLE_OK && got > 0) {
        into.append(buffer, got);
      }
      return true;
    }
    if (code == CURLE_OK) return core::Error{EPIPE, "the peer closed the connection"};
    if (code != CURLE_AGAIN)
      return core::Error{EIO, std::string("reading: ") + curl().easy_strerror(code)};
    // Readable may mean only part of a TLS record: wait again until the deadline.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd readable{active_socket(handle), POLLIN, 0};
    poll(&readable, 1, static_cast<int>(left.count()));
  }
}

std::string Client::escape(const std::string& text) {
  char* escaped = curl().easy_escape(handle_.get(), text.c_str(), static_cast<int>(text.size()));
  std::string out = escaped != nullptr ? escaped : "";
  curl().free(escaped);
  return out;
}

bool retryable(const Response& response) {
  switch (response.transport) {
    case CURLE_OK:
      return !response.interrupted && (response.status >= 500 || response.status == 429);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

int backoff_ms(int attempt) {
  return 250 << attempt;
}

core::Result<Response> perform_with_retries(Client& client, const Request& request, int attempts,
                                            const std::function<core::Status()>& before_each) {
  for (int attempt = 0;; ++attempt) {
    if (before_each) {
      if (auto ready = before_each(); !ready) return ready.error();
    }
    auto response = client.perform(request);
    if (!response) return response;
    if (attempt + 1 >= attempts || !retryable(*response)) return response;
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms(attempt)));
  }
}

}  // namespace paddock::http
