#include "runtime/kube/kube_client.h"

#include <nlohmann/json.hpp>

namespace paddock::kube {

http::Tls cluster_tls(const ClusterAccess& access) {
  http::Tls tls;
  tls.ca_pem = access.ca_pem;
  tls.client_cert_pem = access.client_cert_pem;
  tls.client_key_pem = access.client_key_pem;
  tls.verify = !access.insecure_skip_tls_verify;
  return tls;
}

core::Error unreachable(const ClusterAccess& access, const std::string& why) {
  return core::Error{EHOSTUNREACH, "cannot reach the Kubernetes API at " + access.server + " (" +
                                       access.source + "): " + why};
}

KubeClient::KubeClient(ClusterAccess access) : access_(std::move(access)) {
  // A client that could not be made is reported by the first request.
  if (auto made = http::Client::create()) http_.emplace(std::move(*made));
}

core::Result<ApiResponse> KubeClient::request(const std::string& method, const std::string& path,
                                              const std::string& json_body) {
  if (!http_) return core::Error{ENOMEM, "libcurl could not start a transfer"};
  http::Request request;
  request.method = method;
  request.url = access_.server + path;
  request.protocols = "https,http";
  request.timeout_seconds = 60;
  request.tls = cluster_tls(access_);
  request.headers = {"Content-Type: application/json", "Accept: application/json"};
  if (!access_.token.empty()) request.headers.push_back("Authorization: Bearer " + access_.token);
  if (!json_body.empty()) request.body = json_body;
  request.max_body_bytes = 64u << 20;
  request.max_error_body_bytes = 64u << 20;
  auto answer = http_->perform(request);
  if (!answer) return answer.error();
  if (answer->transport != CURLE_OK) return unreachable(access_, answer->transport_message);
  ApiResponse response;
  response.status = answer->status;
  response.body = std::move(answer->body);
  if (response.status >= 400) {
    auto status = nlohmann::json::parse(response.body, nullptr, false);
    std::string message =
        status.is_object() ? status.value("message", response.body) : response.body;
    int errno_like = response.status == 404   ? ENOENT
                     : response.status == 409 ? EEXIST
                     : response.status == 403 ? EACCES
                                              : EIO;
    return core::Error{errno_like, "the Kubernetes API answered " +
                                       std::to_string(response.status) + ": " + message};
  }
  return response;
}

}  // namespace paddock::kube
