#pragma once

// The Kubernetes API's REST side over libcurl, as the cluster access says (CA, token or
// client certificate). One client is one connection, used by one thread at a time.

#include <optional>
#include <string>

#include "core/result.h"
#include "http/client.h"
#include "runtime/kube/kubeconfig.h"

namespace paddock::kube {

struct ApiResponse {
  long status = 0;
  std::string body;
};

// The cluster's TLS settings: its CA, a client certificate and key (as PEM blobs, no temp
// files), or no verification where the kubeconfig says so.
http::Tls cluster_tls(const ClusterAccess& access);

// "cannot reach the Kubernetes API at SERVER (SOURCE): WHY".
core::Error unreachable(const ClusterAccess& access, const std::string& why);

class KubeClient {
 public:
  explicit KubeClient(ClusterAccess access);
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  [[nodiscard]] const ClusterAccess& access() const { return access_; }

  // A request to `path` with a JSON body. An answer of 400 or more is an error carrying the
  // API's Status message (ENOENT for 404, EEXIST for 409, EACCES for 403); an unreachable server
  // names it.
  core::Result<ApiResponse> request(const std::string& method, const std::string& path,
                                    const std::string& json_body = "");

 private:
  std::optional<http::Client> http_;  // empty when libcurl could not make one
  ClusterAccess access_;
};

}  // namespace paddock::kube
