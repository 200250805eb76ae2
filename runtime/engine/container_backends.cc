#include "engine/container_backends.h"

#include "engine/engine_backend.h"
#include "kube/kube_backend.h"

namespace paddock::engine {

BackendRegistry all_backends() {
  BackendRegistry registry = builtin_backends();
  for (const char* name : {"docker", "podman"}) {
    registry.add(name, [name] { return EngineBackend::connect(name); });
  }
  registry.add("kubernetes", [] { return kube::KubeBackend::connect(); });
  return registry;
}

}  // namespace paddock::engine
