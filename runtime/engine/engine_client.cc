#include "runtime/engine/engine_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "http/curl_handle.h"

namespace paddock::engine {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

struct Transfer {
  std::string* body = nullptr;
  const std::function<void(std::string_view)>* on_data = nullptr;
  const std::function<bool()>* keep_going = nullptr;
  bool interrupted = false;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view chunk(data, size * count);
  if (transfer->on_data != nullptr) {
    (*transfer->on_data)(chunk);
  } else if (transfer->body->size() + chunk.size() > (64u << 20)) {
    return 0;  // no answer of the API is this large; something is wrong
  } else {
    transfer->body->append(chunk);
  }
  return size * count;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->keep_going != nullptr && !(*transfer->keep_going)()) {
    transfer->interrupted = true;
    return 1;
  }
  return 0;
}

}  // namespace

Result<Endpoint> endpoint_from(const std::string& address, bool tls_verify,
                               const std::string& cert_path) {
  Endpoint endpoint;
  endpoint.description = address;
  if (address.starts_with("unix://")) {
    endpoint.unix_socket = address.substr(7);
    endpoint.base_url = "http://localhost";
    return endpoint;
  }
  if (address.starts_with("tcp://")) {
    std::string host = address.substr(6);
    if (host.ends_with("/")) host.pop_back();
    endpoint.base_url = (tls_verify ? "https://" : "http://") + host;
    if (tls_verify) {
      endpoint.ca_file = cert_path + "/ca.pem";
      endpoint.cert_file = cert_path + "/cert.pem";
      endpoint.key_file = cert_path + "/key.pem";
    }
    return endpoint;
  }
  return invalid_input("engine address '" + address +
                       "' is not unix:///path or tcp://host:port (as DOCKER_HOST is written)");
}

Result<Endpoint> docker_endpoint() {
  std::string home = env_or("HOME", "/root");
  std::string cert_path = env_or("DOCKER_CERT_PATH", home + "/.docker");
  bool tls = !env_or("DOCKER_TLS_VERIFY", "").empty() && env_or("DOCKER_TLS_VERIFY", "") != "0";
  return endpoint_from(env_or("DOCKER_HOST", "unix:///var/run/docker.sock"), tls, cert_path);
}

Result<Endpoint> podman_endpoint() {
  std::string fallback = "unix:///run/podman/podman.sock";
  if (geteuid() != 0) {
    std::string runtime = env_or("XDG_RUNTIME_DIR", "/run/user/" + std::to_string(geteuid()));
    fallback = "unix://" + runtime + "/podman/podman.sock";
  }
  return endpoint_from(env_or("CONTAINER_HOST", fallback), false, "");
}

Error Client::unreachable(int code, const char* detail) const {
  std::string why = detail[0] != '\0' ? detail : curl_easy_strerror(static_cast<CURLcode>(code));
  if (!endpoint_.unix_socket.empty()) {
    // libcurl speaks of "localhost port 80" here; what the user needs is the socket's state.
    if (access(endpoint_.unix_socket.c_str(), F_OK) != 0) {
      why = "no such socket (is the engine running?)";
    } else if (access(endpoint_.unix_socket.c_str(), R_OK | W_OK) != 0) {
      why = "permission denied (the socket's group, e.g. docker, or a rootless engine)";
    } else {
      why = "nothing answers there (is the engine running?)";
    }
  }
  return Error{EHOSTUNREACH,
               "cannot reach the container engine at " + endpoint_.description + ": " + why};
}

Client::Client(Endpoint endpoint) : endpoint_(std::move(endpoint)) {
  // A handle that could not be made is reported by the first request.
  if (auto made = http::new_handle()) handle_ = std::move(*made);
}

Result<Client::Streamed> Client::perform(const std::string& method, const std::string& path,
                                         const std::string& json_body,
                                         const std::function<void(std::string_view)>& on_data,
                                         const std::function<bool()>& keep_going,
                                         std::string& body) {
  if (!handle_) return Error{ENOMEM, "libcurl could not start a transfer"};
  CURL* handle = handle_.get();
  if (handle == nullptr) return Error{ENOMEM, "libcurl could not start a transfer"};
  curl_easy_reset(handle);
  std::string url = endpoint_.base_url + kApiVersion + path;
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  if (!endpoint_.unix_socket.empty()) {
    curl_easy_setopt(handle, CURLOPT_UNIX_SOCKET_PATH, endpoint_.unix_socket.c_str());
  }
  if (!endpoint_.ca_file.empty()) {
    curl_easy_setopt(handle, CURLOPT_CAINFO, endpoint_.ca_file.c_str());
    curl_easy_setopt(handle, CURLOPT_SSLCERT, endpoint_.cert_file.c_str());
    curl_easy_setopt(handle, CURLOPT_SSLKEY, endpoint_.key_file.c_str());
  }
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
  if (method != "GET" && method != "DELETE" && method != "HEAD") {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, json_body.c_str());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(json_body.size()));
  }
  Transfer transfer{&body, on_data ? &on_data : nullptr, keep_going ? &keep_going : nullptr};
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, keep_going ? 0L : 1L);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &transfer);
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
  CURLcode code = curl_easy_perform(handle);
  curl_slist_free_all(headers);
  Streamed result;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &result.status);
  result.interrupted = transfer.interrupted;
  if (code != CURLE_OK && !transfer.interrupted) return unreachable(code, error_buffer);
  if (!on_data && result.status >= 400) {
    // The engine's {"message": "..."} says why; the caller adds what it was doing.
    auto answer = nlohmann::json::parse(body, nullptr, false);
    std::string message =
        answer.is_object() && answer.contains("message") && answer["message"].is_string()
            ? answer["message"].get<std::string>()
            : body;
    int errno_like = result.status == 404 ? ENOENT : result.status == 409 ? EEXIST : EIO;
    return Error{errno_like, message};
  }
  return result;
}

Result<Client::Streamed> Client::stream(const std::string& method, const std::string& path,
                                        const std::string& json_body,
                                        const std::function<void(std::string_view)>& on_data,
                                        const std::function<bool()>& keep_going) {
  std::string unused;  // the body goes to on_data
  return perform(method, path, json_body, on_data, keep_going, unused);
}

Result<Response> Client::request(const std::string& method, const std::string& path,
                                 const std::string& json_body) {
  Response response;
  auto performed = perform(method, path, json_body, nullptr, nullptr, response.body);
  if (!performed) return performed.error();
  response.status = performed->status;
  return response;
}

}  // namespace paddock::engine
