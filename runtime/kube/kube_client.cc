#include "runtime/kube/kube_client.h"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

namespace paddock::kube {
namespace {

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * count > (64u << 20)) return 0;
  body->append(data, size * count);
  return size * count;
}

void set_blob(CURL* handle, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(handle, option, &blob);
}

}  // namespace

void apply_cluster_tls(CURL* handle, const ClusterAccess& access) {
  if (!access.ca_pem.empty()) set_blob(handle, CURLOPT_CAINFO_BLOB, access.ca_pem);
  if (!access.client_cert_pem.empty()) {
    set_blob(handle, CURLOPT_SSLCERT_BLOB, access.client_cert_pem);
    set_blob(handle, CURLOPT_SSLKEY_BLOB, access.client_key_pem);
  }
  if (access.insecure_skip_tls_verify) {
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

KubeClient::KubeClient(ClusterAccess access) : access_(std::move(access)) {
  // A handle that could not be made is reported by the first request.
  if (auto made = http::new_handle()) handle_ = std::move(*made);
}

Result<ApiResponse> KubeClient::request(const std::string& method, const std::string& path,
                                        const std::string& json_body) {
  CURL* handle = handle_.get();
  if (handle == nullptr) return Error{ENOMEM, "libcurl could not start a transfer"};
  curl_easy_reset(handle);
  std::string url = access_.server + path;
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "https,http");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
  apply_cluster_tls(handle, access_);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  std::string bearer = "Authorization: Bearer " + access_.token;
  if (!access_.token.empty()) headers = curl_slist_append(headers, bearer.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
  if (!json_body.empty()) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, json_body.c_str());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(json_body.size()));
  }
  ApiResponse response;
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
  CURLcode code = curl_easy_perform(handle);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    return Error{EHOSTUNREACH,
                 "cannot reach the Kubernetes API at " + access_.server + " (" + access_.source +
                     "): " + (error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code))};
  }
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
  if (response.status >= 400) {
    auto status = nlohmann::json::parse(response.body, nullptr, false);
    std::string message =
        status.is_object() ? status.value("message", response.body) : response.body;
    int errno_like = response.status == 404   ? ENOENT
                     : response.status == 409 ? EEXIST
                     : response.status == 403 ? EACCES
                                              : EIO;
    return Error{errno_like,
                 "the Kubernetes API answered " + std::to_string(response.status) + ": " + message};
  }
  return response;
}

}  // namespace paddock::kube
