#include "runtime/kube/kube_backend.h"

#include "runtime/container/sandbox_owner.h"

#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "runtime/container/container_config.h"
#include "runtime/kube/kube_client.h"
#include "runtime/kube/localhost_profile.h"

namespace paddock::kube {
namespace {

using json = nlohmann::json;

bool orphaned(const json& labels) {
  return container::owner_provably_dead(labels, container::this_paddock(),
                                        container::process_start_time);
}

}  // namespace

runtime::BackendSupport kube_support() {
  runtime::BackendSupport support = container::container_support("kubernetes");
  support.cpu_time = false;
  support.seccomp_changes = false;
  return support;
}

core::Result<std::unique_ptr<runtime::Backend>> KubeBackend::connect(const KubeSettings& settings) {
  auto access = find_cluster_access(settings.location);
  if (!access) return access.error().context("the kubernetes backend");
  if (settings.namespace_name) access->namespace_name = *settings.namespace_name;
  const PodOptions& options = settings.pods;
  if (options.seccomp_profile && !valid_localhost_profile(*options.seccomp_profile)) {
    return core::invalid_input(settings.seccomp_profile_source + " '" + *options.seccomp_profile +
                               "' is not " + kLocalhostProfileRule + "; use e.g. " +
                               kLocalhostProfileExample);
  }
  KubeClient client(*access);
  // Pods first: a secret or a NetworkPolicy goes once nothing uses it.
  const std::string core = "/api/v1/namespaces/" + access->namespace_name;
  for (const std::string& path :
       {core + "/pods", core + "/secrets", network_policies_path(access->namespace_name)}) {
    auto listed = client.request("GET", path + "?labelSelector=" + std::string(kPodLabel) + "%3D1");
    // An account that may not list NetworkPolicies cannot have made any: no run that needs one
    // starts without it (kube_exec.cc), so there is nothing of that kind to clean up.
    if (!listed && path.ends_with("/networkpolicies") && listed.error().code == EACCES) continue;
    if (!listed) return listed.error().context("the kubernetes backend");
    json list = json::parse(listed->body, nullptr, false);
    for (const auto& item : list.value("items", json::array())) {
      const json& metadata = item.value("metadata", json::object());
      if (!orphaned(metadata.value("labels", json::object()))) continue;
      (void)client.request("DELETE",
                           path + "/" + metadata.value("name", "") + "?gracePeriodSeconds=0");
    }
  }
  return std::unique_ptr<runtime::Backend>(new KubeBackend(std::move(*access), options));
}

core::Result<std::unique_ptr<container::ContainerSession>> KubeBackend::start(
    const runtime::SandboxShape& shape, const runtime::RunPlan& plan) const {
  auto pod = KubeExec::create(access_, shape, plan, options_);
  if (!pod) return pod.error();
  runtime::IsolationReport report;
  report.namespaces = {"mount", "pid", "ipc", "uts", "network"};
  report.seccomp = true;
  report.seccomp_profile = options_.seccomp_profile ? "Localhost " + *options_.seccomp_profile +
                                                          " (the profile installed on the nodes)"
                                                    : "RuntimeDefault (the cluster's)";
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  // A pod that is to have no network gets a deny-all NetworkPolicy (kube_exec.cc), but only a
  // network plugin that implements NetworkPolicies applies it, and paddock cannot tell from the
  // API whether this cluster's does.
  // An installer that needs the network has the cluster's, and the policy comes when its step
  // ends (container::run_to_the_end).
  report.network = !container::wants_network(shape, plan)
                       ? "none (a deny-all NetworkPolicy, in effect where "
                         "the cluster's network plugin enforces "
                         "NetworkPolicies)"
                   : container::installer_network_only(shape, plan)
                       ? "none after the installer's step (a deny-all NetworkPolicy made when it "
                         "ends, in effect where the cluster's network plugin enforces "
                         "NetworkPolicies)"
                       : "the cluster's (no fence against private and metadata addresses)";
  report.root = "image " + shape.image + " (pod in " + access_.namespace_name + ")";
  report.limits_mode = "kubernetes";
  report.limits_reason =
      "memory and CPU are pod limits and the tmpfs sizes emptyDir sizeLimits; a pod has no pids "
      "limit of its own (that is the node's podPidsLimit)";
  // Said in every result, since a caller may rely on each: no pids limit (a node setting), the
  // nofile and fsize limits (Kubernetes sets no rlimits), paddock's seccomp profile unless the
  // operator installed one on the nodes and named it (the pod gets the runtime's default), and
  // paddock's network isolation: the NetworkPolicy may not be enforced (above), and a network
  // that is given is the cluster's, where code reaches the API server, the private ranges and
  // the cloud's metadata address, which user-mode networking fences off.
  report.not_enforced = {"pids", "open_files", "file_size"};
  if (!options_.seccomp_profile) report.not_enforced.push_back("seccomp_profile");
  if (shape.network != runtime::NetworkMode::kHost) report.not_enforced.push_back("network");
  return std::make_unique<container::ContainerSession>("kubernetes", shape, std::move(*pod),
                                                       report);
}

}  // namespace paddock::kube
