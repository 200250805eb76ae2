#pragma once

// The kubernetes backend: a pod per sandbox or session (kube_exec.h), carried out through the
// API server's REST and exec APIs; no kubectl. The cluster and namespace come from the
// kubeconfig (KUBECONFIG or ~/.kube/config) or the in-cluster service account;
// PADDOCK_KUBE_NAMESPACE overrides the namespace, and PADDOCK_KUBE_SECCOMP_PROFILE names a
// Localhost seccomp profile for the pods (unless `options` names one). Pods, secrets and
// NetworkPolicies a dead paddock of this host left behind are deleted when the backend connects.

#include <memory>

#include "runtime/container/container_backend.h"
#include "runtime/kube/kube_exec.h"
#include "runtime/kube/kubeconfig.h"

namespace paddock::kube {

class KubeBackend final : public engine::ContainerBackend {
 public:
  // `namespace_name` wins over PADDOCK_KUBE_NAMESPACE, which wins over the kubeconfig's.
  static Result<std::unique_ptr<Backend>> connect(
      const std::optional<std::string>& namespace_name = std::nullopt, PodOptions options = {});

  [[nodiscard]] std::string_view name() const override { return "kubernetes"; }
  // Each call is a pod of its own; the cluster pulls the images.
  [[nodiscard]] BackendAbilities abilities() const override { return {}; }

 private:
  KubeBackend(ClusterAccess access, PodOptions options)
      : access_(std::move(access)), options_(options) {}
  Result<std::unique_ptr<engine::ContainerSession>> start(const SandboxShape& shape,
                                                          const RunPlan& plan) const override;
  ClusterAccess access_;
  PodOptions options_;
};

}  // namespace paddock::kube
