#pragma once

// Backends by name, registered explicitly (no static self-registration, which static libraries
// silently drop). Which ones an executable has is decided here at the top, in
// cli/available_backends.h; each is created with its own typed settings, which this floor
// resolved (cli/backend_settings.h).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rootfs/registry_credentials.h"
#include "runtime/backend.h"
#include "runtime/engine/engine_settings.h"
#include "runtime/kube/kube_settings.h"
#include "runtime/native/native_backend.h"

namespace paddock::cli {

// Each backend's settings; a factory reads its own part.
struct BackendSettings {
  native::NativeSettings native;
  rootfs::RegistryConfig registry;  // the native backend's pulls (paddock-full)
  engine::EngineSettings engine;    // docker and podman
  kube::KubeSettings kube;
};

class BackendRegistry {
 public:
  using Factory =
      std::function<core::Result<std::unique_ptr<runtime::Backend>>(const BackendSettings&)>;

  void add(std::string name, Factory factory);
  // The backend called `name`, or an error that lists the known ones.
  [[nodiscard]] core::Result<std::unique_ptr<runtime::Backend>> create(
      const std::string& name, const BackendSettings& settings = {}) const;
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, Factory>> factories_;
};

}  // namespace paddock::cli
