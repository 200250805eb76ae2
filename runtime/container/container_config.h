#pragma once

// The Engine API's container-create body for a sandbox: the policy's hardening expressed in
// what Docker and Podman enforce themselves. Pure; unit tests check it without an engine.
//
//   network none (unless the spec allows networking: then the options' network), CapDrop ALL,
//   no-new-privileges, the spec's seccomp profile inline, a read-only root with size-limited tmpfs
//   /work and /tmp, the non-root sandbox user, memory/pids/CPU/nofile limits, and paddock's labels.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::container {

// The network a sandbox that needs one joins unless PADDOCK_ENGINE_NETWORK names another: the
// engine's default one (Podman's compat API knows its "podman" network by this name too).
inline constexpr const char* kDefaultNetwork = "bridge";
// A name as Docker and Podman allow it for a network: a letter or digit, then those, _ . or -.
// Names go into request paths, so nothing else is sent.
bool valid_network_name(const std::string& name);

struct ContainerOptions {
  std::string image{};          // reference as the engine knows it
  std::string seccomp_json{};   // the profile's text (Docker's JSON format)
  std::string seccomp_file{};   // or a file holding it, for engines that take only a path (Podman)
  bool resource_limits = true;  // false where the engine cannot apply them (rootless on v1)
  bool tmpfs_owner_option = false;        // Podman: the tmpfs owner as "U", not uid=/gid=
  std::string network = kDefaultNetwork;  // the engine network of a sandbox that gets one
};

// Labels every sandbox container or pod carries: this one, and its owner's (sandbox_owner.h),
// by which orphans are found.
inline constexpr const char* kSandboxLabel = "io.paddock.sandbox";
nlohmann::json sandbox_labels();

// True when the sandbox gets a network at all: the program's, or an installer's.
inline bool wants_network(const runtime::SandboxShape& shape, const runtime::RunPlan& plan) {
  return shape.network != runtime::NetworkMode::kNone || plan.networked_steps > 0;
}

// True when only the installer may have the network: it is taken away before the next step.
inline bool installer_network_only(const runtime::SandboxShape& shape,
                                   const runtime::RunPlan& plan) {
  return shape.network == runtime::NetworkMode::kNone && plan.networked_steps > 0;
}

nlohmann::json container_config(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                                const ContainerOptions& options);

// The shape's seccomp profile as Docker's JSON (its file, or paddock's default), with the
// shape's allowed and denied calls applied as the native backend applies them.
core::Result<std::string> seccomp_profile_text(const runtime::SandboxShape& shape);

// Writes `profile` to a private file named by its content, for engines that read the profile
// from a path themselves (Podman): under `runtime_dir`/paddock (XDG_RUNTIME_DIR), else
// /tmp/paddock-UID.
core::Result<std::string> seccomp_profile_file(const std::string& profile,
                                               const std::optional<std::string>& runtime_dir);

}  // namespace paddock::container
