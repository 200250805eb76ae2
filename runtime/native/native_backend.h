#pragma once

// The native backend: paddock isolates the run itself with namespaces, a pivot_root'ed tmpfs
// root, rlimits, dropped capabilities and seccomp. No daemon, no setuid helper of its own.

#include "backend.h"
#include "session.h"

namespace paddock {

class NativeBackend final : public Backend {
 public:
  [[nodiscard]] std::string_view name() const override { return "native"; }
  [[nodiscard]] Result<RunResult> run(const SandboxSpec& spec, RunObserver& observer) override;
  [[nodiscard]] Result<std::unique_ptr<Session>> open_session(const SandboxSpec& spec) override;
};

}  // namespace paddock
