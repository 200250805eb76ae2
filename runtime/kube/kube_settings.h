#pragma once

// What the kubernetes backend is given by the one that creates it (cli/): the settings and the
// parts of the environment a kubectl user expects it to follow, resolved above and typed here,
// so nothing of this backend reads the environment itself.

#include <optional>
#include <string>

namespace paddock::kube {

// The namespace of a kubeconfig context that names none, as kubectl's.
inline constexpr const char* kDefaultNamespace = "default";

struct PodOptions {
  double start_seconds = 120;
  // false: imagePullPolicy Never, so a missing image fails at once (ErrImageNeverPull).
  bool pull_images = true;
  // A Localhost seccomp profile (localhost_profile.h) for the pod instead of the runtime's
  // default: the profile the cluster's operator installed at that path on the nodes.
  std::optional<std::string> seccomp_profile{};
};

// Where to find the cluster, as kubectl does: KUBECONFIG, else ~/.kube/config, else the pod's
// service account (KUBERNETES_SERVICE_HOST and _PORT).
struct ClusterLocation {
  std::optional<std::string> kubeconfig;  // KUBECONFIG as set (a list: its first file is read)
  std::optional<std::string> home;        // HOME
  std::optional<std::string> service_host;
  std::optional<std::string> service_port;
};

struct KubeSettings {
  std::optional<std::string> namespace_name;  // over the kubeconfig context's
  PodOptions pods;
  // What error messages name as the seccomp profile's origin: the front-end's spelling (its
  // flag or variable), else these words.
  std::string seccomp_profile_source = "the Kubernetes seccomp profile";
  ClusterLocation location;
};

}  // namespace paddock::kube
