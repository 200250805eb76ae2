#include "engine/container_backends.h"

#include "engine/engine_backend.h"

namespace paddock::engine {

BackendRegistry all_backends() {
  BackendRegistry registry = builtin_backends();
  for (const char* name : {"docker", "podman"}) {
    registry.add(name, [name] { return EngineBackend::connect(name); });
  }
  return registry;
}

}  // namespace paddock::engine
