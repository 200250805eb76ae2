#pragma once

// Commands into a Docker or Podman container through the Engine API (engine_client.h): the
// container is created hardened (container_config.h) around a process that only keeps it
// alive, and each command is an exec whose multiplexed stream is read as it arrives.

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "runtime/container/container_config.h"
#include "runtime/container/exec_transport.h"
#include "runtime/engine/engine_client.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::engine {

struct Flavour {
  std::string name;  // "docker" or "podman": the result's backend
  Endpoint endpoint;
  bool resource_limits = true;
  // Podman's differences: the seccomp profile as a file (not inline), the tmpfs owner as "U".
  bool podman_options = false;
  std::string network = container::kDefaultNetwork;  // what a sandbox with a network joins
  std::optional<std::string> runtime_dir{};  // XDG_RUNTIME_DIR: where Podman's seccomp files go
};

class DockerExec final : public container::ExecTransport {
 public:
  // Creates and starts the container of `shape` (which must name an image).
  static core::Result<std::unique_ptr<DockerExec>> create(const Flavour& flavour,
                                                          const runtime::SandboxShape& shape,
                                                          const runtime::RunPlan& plan);
  ~DockerExec() override { remove(); }

  // On the kept connection, or on one of its own while another command holds that one.
  core::Result<container::ExecOutcome> run(const container::ExecCommand& command) override;
  // Disconnects the container from each network the engine says it is on, then asks again.
  core::Status leave_networks() override;
  void remove() override;

 private:
  core::Result<container::ExecOutcome> run_on(Client& client,
                                              const container::ExecCommand& command);
  // The names of the networks the engine has the container on.
  core::Result<std::vector<std::string>> networks(Client& client) const;

  DockerExec(const Flavour& flavour, std::string id)
      : flavour_(flavour), id_(std::move(id)), client_(flavour.endpoint) {}

  Flavour flavour_;
  std::string id_;
  Client client_;
  std::atomic<bool> client_busy_ = false;
  bool removed_ = false;
};

}  // namespace paddock::engine
