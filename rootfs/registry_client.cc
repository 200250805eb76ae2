#include "rootfs/registry_client.h"

#include <chrono>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "rootfs/registry_auth.h"

namespace paddock::rootfs {

const char* const kManifestAccept =
    "application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.oci.image.index.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json";

namespace {

using json = nlohmann::json;

constexpr std::uint64_t kMaxManifestBytes = 4u << 20;
constexpr std::uint64_t kMaxErrorBodyBytes = 64u << 10;

void wait_before_retry(int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(http::backoff_ms(attempt)));
}

}  // namespace

struct RegistryClient::Shared {
  ImageReference reference;
  RegistryOptions options;
  std::optional<Credentials> credentials;
  bool plain_allowed = false;
  std::optional<std::string> ca_file;  // the registry's own CA, from a certs.d directory

  std::mutex mutex;  // guards what follows: learned while pulling, by any thread
  std::string scheme = "https";
  std::string authorization;  // the Authorization header's value, once the registry asked
};

RegistryClient::RegistryClient(std::shared_ptr<Shared> shared, http::Client client)
    : shared_(std::move(shared)), http_(std::move(client)) {}

core::Result<RegistryClient> RegistryClient::create(const ImageReference& reference,
                                                    const RegistryOptions& options) {
  auto credentials = find_credentials(reference.registry, options.creds, options.config);
  if (!credentials) return credentials.error();
  auto shared = std::make_shared<Shared>();
  shared->reference = reference;
  shared->options = options;
  shared->credentials = *credentials;
  shared->plain_allowed = options.insecure || reference.is_loopback();
  shared->ca_file = registry_ca_file(reference.api_host(), options.config);
  if (reference.is_loopback()) shared->scheme = "http";
  auto client = http::Client::create();
  if (!client) return client.error();
  return RegistryClient(std::move(shared), std::move(*client));
}

core::Result<RegistryClient> RegistryClient::fork() const {
  auto client = http::Client::create();
  if (!client) return client.error();
  return RegistryClient(shared_, std::move(*client));
}

std::function<bool()> RegistryClient::keep_going() const {
  const std::atomic<bool>* abort = abort_;
  return [abort] { return abort == nullptr || !abort->load(); };
}

core::Result<http::Response> RegistryClient::perform_once(const std::string& method,
                                                          const std::string& url,
                                                          const std::string& accept,
                                                          const Sink* sink,
                                                          std::uint64_t max_bytes) {
  http::Request request;
  request.method = method;
  request.url = url;
  // A blob may be redirected to a CDN (never from HTTPS down to plain HTTP).
  request.follow_redirects = true;
  request.connect_timeout_seconds = 30;
  // A stalled transfer fails, and is retried.
  request.abort_when_stalled = true;
  request.max_body_bytes = max_bytes;
  request.max_error_body_bytes = kMaxErrorBodyBytes;
  if (shared_->ca_file) request.tls.ca_file = *shared_->ca_file;
  request.tls.verify = !shared_->options.insecure;
  if (!accept.empty()) request.headers.push_back("Accept: " + accept);
  // curl drops a custom Authorization header when a redirect leaves the host (a CDN's signed
  // URL must not get the registry's token).
  {
    std::lock_guard lock(shared_->mutex);
    if (!shared_->authorization.empty()) {
      request.headers.push_back("Authorization: " + shared_->authorization);
    }
  }
  // Only a successful answer goes to the sink; an error's body is kept to explain it.
  if (sink != nullptr) request.on_data = *sink;
  request.keep_going = keep_going();
  auto response = http_.perform(request);
  if (!response) {
    if (response.error().code == EFBIG) {
      return core::Error{EFBIG, "the registry's answer for " + url + " is larger than " +
                                    std::to_string(max_bytes) + " bytes"};
    }
    return response.error();
  }
  if (response->interrupted) return core::Error{ECANCELED, "transfer abandoned"};
  return response;
}

core::Result<http::Response> RegistryClient::request(const std::string& method,
                                                     const std::string& path,
                                                     const std::string& accept, const Sink* sink,
                                                     const std::function<core::Status()>* restart,
                                                     std::uint64_t max_bytes) {
  const ImageReference& reference = shared_->reference;
  bool authenticated = false;
  bool fell_back = false;
  for (int attempt = 0; attempt < kAttempts;) {
    if (restart != nullptr) {
      if (auto restarted = (*restart)(); !restarted) return restarted.error();
    }
    std::string scheme;
    {
      std::lock_guard lock(shared_->mutex);
      scheme = shared_->scheme;
    }
    std::string url =
        scheme + "://" + reference.api_host() + "/v2/" + reference.repository + "/" + path;
    auto response = perform_once(method, url, accept, sink, max_bytes);
    if (!response) return response.error();
    CURLcode code = response->transport;
    // A registry allowed plain HTTP may or may not speak TLS. With --insecure, as Docker does:
    // HTTPS first, then HTTP for the rest of the pull. On loopback the other way round, because
    // TLS there protects nothing and loading the CA bundle would double a no-op pull's time; a
    // TLS server answers plain HTTP with 400 (Go's) or by hanging up.
    if (!fell_back && shared_->plain_allowed) {
      bool to_http = scheme == "https" && (code == CURLE_SSL_CONNECT_ERROR ||
                                           code == CURLE_GOT_NOTHING || code == CURLE_RECV_ERROR);
      bool to_https = scheme == "http" && (code == CURLE_GOT_NOTHING || code == CURLE_RECV_ERROR ||
                                           (code == CURLE_OK && response->status == 400));
      if (to_http || to_https) {
        std::lock_guard lock(shared_->mutex);
        shared_->scheme = to_http ? "http" : "https";
        fell_back = true;
        continue;
      }
    }
    if (code != CURLE_OK) {
      if (http::retryable(*response) && attempt + 1 < kAttempts) {
        wait_before_retry(attempt++);
        continue;
      }
      std::string hint;
      if (code == CURLE_PEER_FAILED_VERIFICATION) {
        hint = " (a registry with its own CA: put it in ~/.config/containers/certs.d/" +
               reference.api_host() + "/ca.crt or /etc/docker/certs.d/" + reference.api_host() +
               "/ca.crt)";
      } else if (code == CURLE_SSL_CONNECT_ERROR) {
        hint = " (a registry without TLS needs --insecure)";
      }
      return core::Error{EIO, "pulling " + reference.canonical() + ": cannot reach " +
                                  reference.api_host() + ": " + response->transport_message + hint};
    }
    if (response->status == 401 && !authenticated) {
      authenticated = true;
      std::string challenge = response->header("www-authenticate");
      if (challenge.empty()) return refusal(*response, "");
      auto authorization =
          registry_authorization(http_,
                                 {reference, shared_->credentials, shared_->plain_allowed,
                                  shared_->options.insecure, keep_going()},
                                 challenge);
      if (!authorization) return authorization.error();
      std::lock_guard lock(shared_->mutex);
      shared_->authorization = std::move(*authorization);
      continue;
    }
    if (http::retryable(*response) && attempt + 1 < kAttempts) {
      wait_before_retry(attempt++);
      continue;
    }
    return std::move(response).value();
  }
  return core::Error{EIO, "pulling " + reference.canonical() + ": the registry kept failing"};
}

core::Error RegistryClient::refusal(const http::Response& response, const std::string& what) const {
  const ImageReference& reference = shared_->reference;
  // The distribution API explains itself as {"errors":[{"code":..,"message":..}]}.
  std::string detail;
  json body = json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("errors") && body["errors"].is_array() &&
      !body["errors"].empty() && body["errors"][0].is_object()) {
    detail = body["errors"][0].value("message", body["errors"][0].value("code", ""));
  }
  std::string because = status_text(response.status) + (detail.empty() ? "" : ", " + detail);
  std::string prefix = "pulling " + reference.canonical() + ": ";
  switch (response.status) {
    case 401:
      return core::Error{
          EACCES, prefix + "access denied (" + because + ")" +
                      (shared_->credentials ? ""
                                            : "; give credentials with --creds USER:PASS or in "
                                              "~/.docker/config.json")};
    case 403:
      return core::Error{EACCES, prefix + "access denied (" + because + ")"};
    case 404:
      return core::Error{ENOENT, prefix + (what.empty() ? "not found" : what + " not found") +
                                     " in the registry (" + because + ")"};
    default:
      return core::Error{
          EIO, prefix + "the registry answered " + because + (what.empty() ? "" : " for " + what)};
  }
}

core::Result<RegistryClient::Manifest> RegistryClient::get_manifest(
    const std::string& tag_or_digest) {
  auto response = request("GET", "manifests/" + tag_or_digest, kManifestAccept, nullptr, nullptr,
                          kMaxManifestBytes);
  if (!response) return response.error();
  if (response->status != 200) {
    return refusal(*response, tag_or_digest.starts_with("sha256:") ? "manifest " + tag_or_digest
                                                                   : "tag '" + tag_or_digest + "'");
  }
  Manifest manifest;
  manifest.body = std::move(response->body);
  manifest.media_type = response->header("content-type");
  if (auto semicolon = manifest.media_type.find(';'); semicolon != std::string::npos) {
    manifest.media_type = core::trim(manifest.media_type.substr(0, semicolon));
  }
  manifest.digest = response->header("docker-content-digest");
  return manifest;
}

core::Result<std::string> RegistryClient::head_manifest(const std::string& tag_or_digest) {
  auto response = request("HEAD", "manifests/" + tag_or_digest, kManifestAccept, nullptr, nullptr,
                          kMaxManifestBytes);
  if (!response) return response.error();
  if (response->status != 200) {
    return refusal(*response, tag_or_digest.starts_with("sha256:") ? "manifest " + tag_or_digest
                                                                   : "tag '" + tag_or_digest + "'");
  }
  return response->header("docker-content-digest");
}

core::Status RegistryClient::fetch_blob(const std::string& digest,
                                        const std::function<core::Status()>& restart,
                                        const Sink& write) {
  auto response = request("GET", "blobs/" + digest, "", &write, &restart, 0);
  if (!response) return response.error();
  if (response->status != 200) return refusal(*response, "blob " + digest);
  return {};
}

}  // namespace paddock::rootfs
