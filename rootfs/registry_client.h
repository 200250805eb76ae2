#pragma once

// The client side of the OCI distribution API, over http/: manifests by tag or digest, blobs
// streamed to a sink, and the registry's authentication when it asks (registry_auth.h) with the
// user's credentials (registry_credentials.h).
//
// HTTPS by default; plain HTTP only for loopback registries (tried first there, HTTPS after a
// TLS server refuses it) or with `insecure` (tried after HTTPS fails to handshake, as Docker
// does). Failures of the network and 5xx/429 answers are
// retried with backoff; 401/403/404 become one clear line that names the reference.
//
// One RegistryClient is one connection (one http::Client) and is used by one thread at a time;
// fork() gives another for another thread, sharing what was learned about authentication.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "http/client.h"
#include "rootfs/image_reference.h"
#include "rootfs/registry_credentials.h"

namespace paddock::rootfs {

struct RegistryOptions {
  bool insecure = false;             // plain HTTP and unverified TLS for any registry
  std::optional<std::string> creds;  // "USER:PASS"; else ~/.docker/config.json
  RegistryConfig config;             // the user's Docker config file and certs.d
};

// The media types a manifest request accepts: OCI and Docker schema 2, images and indexes.
extern const char* const kManifestAccept;

class RegistryClient {
 public:
  static core::Result<RegistryClient> create(const ImageReference& reference,
                                             const RegistryOptions& options);
  RegistryClient(RegistryClient&&) noexcept = default;
  RegistryClient& operator=(RegistryClient&&) noexcept = default;
  ~RegistryClient() = default;

  // Another connection to the same registry for another thread.
  [[nodiscard]] core::Result<RegistryClient> fork() const;

  struct Manifest {
    std::string body;
    std::string media_type;
    std::string digest;  // Docker-Content-Digest, when the registry sent one
  };
  // GET /v2/<repository>/manifests/<tag or digest>.
  core::Result<Manifest> get_manifest(const std::string& tag_or_digest);
  // HEAD of the same: the digest only (empty when the registry does not say).
  core::Result<std::string> head_manifest(const std::string& tag_or_digest);

  // GET /v2/<repository>/blobs/<digest>, redirects followed, each chunk to `write`. A retry
  // starts the blob again: `restart` is called before every attempt (to drop partial data).
  using Sink = std::function<core::Status(std::string_view)>;
  core::Status fetch_blob(const std::string& digest, const std::function<core::Status()>& restart,
                          const Sink& write);

  // Set from another thread to abandon transfers in progress (another layer failed).
  void set_abort_flag(const std::atomic<bool>* abort) { abort_ = abort; }

  struct Shared;  // what every fork shares: where the registry is, credentials, the token

 private:
  RegistryClient(std::shared_ptr<Shared> shared, http::Client client);
  core::Result<http::Response> request(const std::string& method, const std::string& path,
                                       const std::string& accept, const Sink* sink,
                                       const std::function<core::Status()>* restart,
                                       std::uint64_t max_bytes);
  core::Result<http::Response> perform_once(const std::string& method, const std::string& url,
                                            const std::string& accept, const Sink* sink,
                                            std::uint64_t max_bytes);
  core::Error refusal(const http::Response& response, const std::string& what) const;
  // false once the abort flag is set.
  [[nodiscard]] std::function<bool()> keep_going() const;

  std::shared_ptr<Shared> shared_;
  http::Client http_;
  const std::atomic<bool>* abort_ = nullptr;
};

}  // namespace paddock::rootfs
