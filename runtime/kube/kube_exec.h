#pragma once

// Commands into a Kubernetes pod: the pod is created with a restricted security context around
// a process that only keeps it alive, waited for (a pod that cannot pull its image or be
// scheduled is one clear error, and any pod not running within `start_seconds` too), and
// every command is an exec over WebSocket (websocket_client.h, exec_channels.h). A pod that is
// to have no network gets a deny-all NetworkPolicy of its own first, and it goes with the pod.

#include <memory>
#include <optional>
#include <string>

#include "runtime/container/exec_transport.h"
#include "runtime/kube/kube_client.h"
#include "runtime/kube/kube_settings.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::kube {

// The labels of paddock's pods; orphans are found by them.
inline constexpr const char* kPodLabel = "io.paddock.sandbox";
// A pod's own name as a label (names cannot be selected on): its NetworkPolicy selects by it.
inline constexpr const char* kPodNameLabel = "io.paddock.pod";

class KubeExec final : public container::ExecTransport {
 public:
  static core::Result<std::unique_ptr<KubeExec>> create(const ClusterAccess& access,
                                                        const runtime::SandboxShape& shape,
                                                        const runtime::RunPlan& plan,
                                                        const PodOptions& options);
  ~KubeExec() override { remove(); }

  core::Result<container::ExecOutcome> run(const container::ExecCommand& command) override;
  [[nodiscard]] bool carries_input() const override { return true; }
  // The pod's deny-all NetworkPolicy, made when the installer's step ends.
  [[nodiscard]] core::Status leave_networks() override;
  void remove() override;

 private:
  KubeExec(const ClusterAccess& access, std::string name)
      : client_(access), name_(std::move(name)) {}
  std::string pod_path() const;
  void remove_secret();

  void remove_network_policy();

  KubeClient client_;
  std::string name_;
  bool removed_ = false;
  bool has_secret_ = false;
  bool has_network_policy_ = false;
};

// The Pod object for `shape` and `plan` named `name` (pure; the unit tests read it). The sandbox's
// own variables (plan.env: the policy's and the passed-through ones) are not in it: they are in a
// Secret of the same name (secret_manifest), which the pod takes them from, so that their
// values are not shown to whoever may read pods; it goes with the pod.
std::string pod_manifest(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                         const std::string& name, const PodOptions& options = {});
std::string secret_manifest(const runtime::RunPlan& plan, const std::string& name);
// The NetworkPolicy named `name` that selects the pod of that name alone (by kPodNameLabel) for
// both directions and allows nothing: no traffic in or out but what the cluster's network plugin
// never filters (a pod's own loopback). It is made for a spec that wants no network at all.
std::string network_policy_manifest(const std::string& name);
// Where a namespace's NetworkPolicies are (another API group than pods and secrets).
std::string network_policies_path(const std::string& namespace_name);

}  // namespace paddock::kube
