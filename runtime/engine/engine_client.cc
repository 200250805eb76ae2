#include "runtime/engine/engine_client.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace paddock::engine {

core::Result<Endpoint> endpoint_from(const std::string& address, bool tls_verify,
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
  return core::invalid_input(
      "engine address '" + address +
      "' is not unix:///path or tcp://host:port (as DOCKER_HOST is written)");
}

core::Result<Endpoint> docker_endpoint(const EngineSettings& settings) {
  std::string home = settings.home.value_or("/root");
  std::string cert_path = settings.docker_cert_path.value_or(home + "/.docker");
  return endpoint_from(settings.docker_host.value_or("unix:///var/run/docker.sock"),
                       settings.docker_tls_verify, cert_path);
}

core::Result<Endpoint> podman_endpoint(const EngineSettings& settings) {
  std::string fallback = "unix:///run/podman/podman.sock";
  if (geteuid() != 0) {
    std::string runtime = settings.runtime_dir.value_or("/run/user/" + std::to_string(geteuid()));
    fallback = "unix://" + runtime + "/podman/podman.sock";
  }
  return endpoint_from(settings.container_host.value_or(fallback), false, "");
}

core::Error Client::unreachable(const std::string& detail) const {
  std::string why = detail;
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
  return core::Error{EHOSTUNREACH,
                     "cannot reach the container engine at " + endpoint_.description + ": " + why};
}

Client::Client(Endpoint endpoint) : endpoint_(std::move(endpoint)) {
  // A client that could not be made is reported by the first request.
  if (auto made = http::Client::create()) http_.emplace(std::move(*made));
}

core::Result<Client::Streamed> Client::perform(const std::string& method, const std::string& path,
                                               const std::string& json_body,
                                               const std::function<void(std::string_view)>& on_data,
                                               const std::function<bool()>& keep_going,
                                               std::string& body) {
  if (!http_) return core::Error{ENOMEM, "libcurl could not start a transfer"};
  http::Request request;
  request.method = method;
  request.url = endpoint_.base_url + kApiVersion + path;
  request.unix_socket = endpoint_.unix_socket;
  request.tls.ca_file = endpoint_.ca_file;
  if (!endpoint_.ca_file.empty()) {
    request.tls.client_cert_file = endpoint_.cert_file;
    request.tls.client_key_file = endpoint_.key_file;
  }
  request.headers = {"Content-Type: application/json"};
  if (method != "GET" && method != "DELETE" && method != "HEAD") request.body = json_body;
  // No answer of the API is this large; something is wrong.
  request.max_body_bytes = 64u << 20;
  request.max_error_body_bytes = 64u << 20;
  if (on_data) {
    // Every answer: a failed pull explains itself in the stream too.
    request.on_data = [&on_data](std::string_view chunk) {
      on_data(chunk);
      return core::Status{};
    };
    request.stream_every_answer = true;
  }
  request.keep_going = keep_going;
  auto response = http_->perform(request);
  if (!response) return response.error();
  if (response->transport != CURLE_OK) return unreachable(response->transport_message);
  body = std::move(response->body);
  Streamed result;
  result.status = response->status;
  result.interrupted = response->interrupted;
  if (!on_data && result.status >= 400) {
    // The engine's {"message": "..."} says why; the caller adds what it was doing.
    auto answer = nlohmann::json::parse(body, nullptr, false);
    std::string message =
        answer.is_object() && answer.contains("message") && answer["message"].is_string()
            ? answer["message"].get<std::string>()
            : body;
    int errno_like = result.status == 404 ? ENOENT : result.status == 409 ? EEXIST : EIO;
    return core::Error{errno_like, message};
  }
  return result;
}

core::Result<Client::Streamed> Client::stream(const std::string& method, const std::string& path,
                                              const std::string& json_body,
                                              const std::function<void(std::string_view)>& on_data,
                                              const std::function<bool()>& keep_going) {
  std::string unused;  // the body goes to on_data
  return perform(method, path, json_body, on_data, keep_going, unused);
}

core::Result<Response> Client::request(const std::string& method, const std::string& path,
                                       const std::string& json_body) {
  Response response;
  auto performed = perform(method, path, json_body, nullptr, nullptr, response.body);
  if (!performed) return performed.error();
  response.status = performed->status;
  return response;
}

}  // namespace paddock::engine
