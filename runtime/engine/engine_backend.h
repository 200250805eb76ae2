#pragma once

// The docker and podman backends: the same Backend interface as the native one, carried out by
// a container engine through its API (engine_client.h). A run is a session with one command:
// a fresh hardened container, the spec's files written in, its commands as execs, the
// container removed. Containers carry paddock's labels; those a dead paddock left behind are
// removed when the backend starts.

#include <memory>

#include "runtime/container/container_backend.h"
#include "runtime/engine/docker_exec.h"
#include "runtime/engine/engine_settings.h"

namespace paddock::engine {

class EngineBackend final : public container::ContainerBackend {
 public:
  // Connects to the engine ("docker" or "podman"), asks what it can enforce, and removes the
  // orphans of earlier paddock processes. An unreachable engine is one error naming where.
  static core::Result<std::unique_ptr<runtime::Backend>> connect(const std::string& name,
                                                                 const EngineSettings& settings);

  [[nodiscard]] std::string_view name() const override { return flavour_.name; }
  // Each call is a container of its own; the engine keeps the images.
  [[nodiscard]] runtime::BackendAbilities abilities() const override { return {}; }
  [[nodiscard]] core::Result<bool> has_image(const std::string& image) const override;
  // POST /images/create: the engine pulls (with its own credentials and registries config).
  [[nodiscard]] core::Status pull_image(const std::string& image,
                                        const runtime::PullProgress& progress) const override;

 private:
  explicit EngineBackend(Flavour flavour) : flavour_(std::move(flavour)) {}
  core::Result<std::unique_ptr<container::ContainerSession>> start(
      const runtime::SandboxShape& shape, const runtime::RunPlan& plan) const override;
  // What every result of this engine reports about the sandbox.
  runtime::IsolationReport isolation_for(const runtime::SandboxShape& shape) const;
  Flavour flavour_;
};

// Removes the containers labelled as paddock's whose paddock process is gone (or whose boot is
// over); returns how many.
core::Result<int> remove_orphans(Client& client);

}  // namespace paddock::engine
