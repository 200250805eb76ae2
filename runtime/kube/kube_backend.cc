#include "kube/kube_backend.h"

#include "engine/sandbox_owner.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "engine/container_config.h"
#include "kube/kube_client.h"

namespace paddock::kube {
namespace {

using json = nlohmann::json;

bool orphaned(const json& labels) {
  return engine::owner_provably_dead(labels, engine::this_paddock(), engine::process_start_time);
}

}  // namespace

Result<std::unique_ptr<Backend>> KubeBackend::connect(
    const std::optional<std::string>& namespace_name, PodOptions options) {
  auto access = find_cluster_access();
  if (!access) return access.error().context("the kubernetes backend");
  if (const char* name = getenv("PADDOCK_KUBE_NAMESPACE"); name != nullptr && *name != '\0') {
    access->namespace_name = name;
  }
  if (namespace_name) access->namespace_name = *namespace_name;
  KubeClient client(*access);
  // Pods first: a secret goes once nothing uses it.
  for (const char* kind : {"pods", "secrets"}) {
    std::string path = "/api/v1/namespaces/" + access->namespace_name + "/" + kind;
    auto listed = client.request("GET", path + "?labelSelector=" + std::string(kPodLabel) + "%3D1");
    if (!listed) return listed.error().context("the kubernetes backend");
    json list = json::parse(listed->body, nullptr, false);
    for (const auto& item : list.value("items", json::array())) {
      const json& metadata = item.value("metadata", json::object());
      if (!orphaned(metadata.value("labels", json::object()))) continue;
      (void)client.request("DELETE",
                           path + "/" + metadata.value("name", "") + "?gracePeriodSeconds=0");
    }
  }
  return std::unique_ptr<Backend>(new KubeBackend(std::move(*access), options));
}

Result<std::unique_ptr<engine::ContainerSession>> KubeBackend::start(
    const SandboxSpec& spec) const {
  auto pod = KubeExec::create(access_, spec, options_);
  if (!pod) return pod.error();
  IsolationReport report;
  report.namespaces = {"mount", "pid", "ipc", "uts", "network"};
  report.seccomp = true;
  report.seccomp_profile = "RuntimeDefault (the cluster's)";
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  report.network = "the cluster's (paddock applies no NetworkPolicy)";
  report.root = "image " + spec.image + " (pod in " + access_.namespace_name + ")";
  report.limits_mode = "kubernetes";
  report.limits_reason =
      "memory and CPU are pod limits and the tmpfs sizes emptyDir sizeLimits; a pod has no pids "
      "limit of its own (that is the node's podPidsLimit)";
  // Said in every result, since a caller may rely on each: no pids limit (a node setting), none
  // of paddock's network isolation (the pod is on the cluster's network, where code reaches the
  // API server and the cloud's metadata address unless the cluster's own NetworkPolicies stop
  // it), paddock's seccomp profile (the pod gets the runtime's default), and the nofile and
  // fsize limits (Kubernetes sets no rlimits).
  report.not_enforced = {"pids", "seccomp_profile", "open_files", "file_size"};
  if (spec.network == NetworkMode::kNone) report.not_enforced.push_back("network");
  return std::make_unique<engine::ContainerSession>("kubernetes", spec, std::move(*pod), report);
}

}  // namespace paddock::kube
