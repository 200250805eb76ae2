#pragma once

// Where the Kubernetes API server is and who paddock is to it: the kubeconfig's current context
// (KUBECONFIG, else ~/.kube/config), or, inside a cluster, the pod's service account.
// Certificates and keys are kept as PEM text (libcurl takes them as blobs): no temp files.

#include <optional>
#include <string>

#include "core/result.h"
#include "runtime/kube/kube_settings.h"

namespace paddock::kube {

struct ClusterAccess {
  std::string server;          // https://host:port
  std::string namespace_name;  // the context's, else "default"
  std::string ca_pem;          // empty: the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string token;            // a bearer token, or
  std::string client_cert_pem;  // a client certificate and its key
  std::string client_key_pem;
  std::string source;  // what error messages name: the kubeconfig file and context, or "in-cluster"
};

// The kubeconfig's text (YAML or JSON) read as `path` says, for `context` (empty: current).
core::Result<ClusterAccess> parse_kubeconfig(const std::string& text, const std::string& path,
                                             const std::string& context = "");

// KUBECONFIG (its first file), else ~/.kube/config, else the in-cluster service account.
core::Result<ClusterAccess> find_cluster_access(const ClusterLocation& location);

}  // namespace paddock::kube
