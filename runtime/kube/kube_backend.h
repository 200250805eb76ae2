#pragma once

// The kubernetes backend: a pod per sandbox or session (kube_exec.h), carried out through the
// API server's REST and exec APIs; no kubectl. The cluster and namespace come from the
// kubeconfig (KUBECONFIG or ~/.kube/config) or the in-cluster service account, as the settings
// locate them (kube_settings.h); the settings' namespace overrides the kubeconfig's, and they may
// name a Localhost seccomp profile for the pods. Pods, secrets and NetworkPolicies a dead paddock
// of this host left behind are deleted when the backend connects.

#include <memory>

#include "runtime/container/container_backend.h"
#include "runtime/kube/kube_exec.h"
#include "runtime/kube/kube_settings.h"
#include "runtime/kube/kubeconfig.h"

namespace paddock::kube {

// What Docker and Podman lack, and more: a pod has no rlimits (so no CPU time limit), and loads
// only a seccomp profile installed on its node, whole (the Kubernetes seccomp profile setting).
runtime::BackendSupport kube_support();

class KubeBackend final : public container::ContainerBackend {
 public:
  static core::Result<std::unique_ptr<runtime::Backend>> connect(const KubeSettings& settings);

  [[nodiscard]] std::string_view name() const override { return "kubernetes"; }
  // Each call is a pod of its own; the cluster pulls the images.
  [[nodiscard]] runtime::BackendAbilities abilities() const override { return {}; }

 protected:
  [[nodiscard]] runtime::BackendSupport support() const override { return kube_support(); }

 private:
  KubeBackend(ClusterAccess access, PodOptions options)
      : access_(std::move(access)), options_(options) {}
  core::Result<std::unique_ptr<container::ContainerSession>> start(
      const runtime::SandboxShape& shape, const runtime::RunPlan& plan) const override;
  ClusterAccess access_;
  PodOptions options_;
};

}  // namespace paddock::kube
