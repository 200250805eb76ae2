#pragma once

// Backends by name, registered explicitly (no static self-registration, which static libraries
// silently drop). Which ones an executable has is decided at the top, in cli/available_backends.h.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace paddock {

// What the one creating a backend may choose (`paddock mcp`'s flags); unset: the backend's own
// defaults and environment.
struct BackendSettings {
  std::optional<std::string> kube_namespace;  // over the kubeconfig's and PADDOCK_KUBE_NAMESPACE
  double pod_start_seconds = 120;             // a pod not running by then is an error
  // A Localhost seccomp profile for the pods, over PADDOCK_KUBE_SECCOMP_PROFILE.
  std::optional<std::string> kube_seccomp_profile;
  // false (--pull never): images must be present; a cluster is told not to pull either.
  bool pull_images = true;
};

class BackendRegistry {
 public:
  using Factory = std::function<Result<std::unique_ptr<Backend>>(const BackendSettings&)>;

  void add(std::string name, Factory factory);
  // The backend called `name`, or an error that lists the known ones.
  [[nodiscard]] Result<std::unique_ptr<Backend>> create(const std::string& name,
                                                        const BackendSettings& settings = {}) const;
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, Factory>> factories_;
};

}  // namespace paddock
