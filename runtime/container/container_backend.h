#pragma once

// What the container backends (docker, podman, kubernetes) share: a sandbox is a
// ContainerSession over the backend's exec transport, a run is such a session with one command
// (run_to_the_end), and images are the engine's or cluster's own, named by reference.

#include <memory>

#include "runtime/backend.h"
#include "runtime/container/container_session.h"
#include "runtime/sandbox_validation.h"

namespace paddock::container {

// What Docker and Podman carry out of a shape: not the native backend's egress proxy (so no
// allowlist and no brokered secrets), its binds or memory.high; the CPU time limit, the seccomp
// profile and its additions they do (container_config.h).
runtime::BackendSupport container_support(std::string_view backend);

class ContainerBackend : public runtime::Backend {
 public:
  // What every backend checks (runtime/sandbox_validation.h), with what these cannot enforce
  // (support()) refused there.
  [[nodiscard]] core::Status check(const runtime::SandboxShape& shape,
                                   const runtime::RunPlan& plan) const final;
  [[nodiscard]] core::Result<runtime::RunResult> run(const runtime::SandboxShape& shape,
                                                     const runtime::RunPlan& plan,
                                                     runtime::RunObserver& observer) final;
  [[nodiscard]] core::Result<std::unique_ptr<runtime::Session>> open_session(
      const runtime::SandboxShape& shape, const runtime::RunPlan& base) final;
  // The reference goes to the engine or cluster as it is.
  [[nodiscard]] core::Result<runtime::ResolvedImage> resolve_image(
      const std::string& image, const std::optional<std::string>& store_root) const final;

 protected:
  // What this backend carries out (container_support, or kube_support).
  [[nodiscard]] virtual runtime::BackendSupport support() const {
    return container_support(name());
  }
  // A fresh container or pod of `shape`, as a session; `plan` gives its environment and
  // directory, and whether an installer will need a network.
  virtual core::Result<std::unique_ptr<ContainerSession>> start(
      const runtime::SandboxShape& shape, const runtime::RunPlan& plan) const = 0;
};

}  // namespace paddock::container
