#include "cli/available_backends.h"

#include "runtime/native/native_backend.h"

namespace paddock {
namespace {

BackendRegistry& current() {
  static BackendRegistry registry = builtin_backends();
  return registry;
}

}  // namespace

void set_available_backends(BackendRegistry registry) {
  current() = std::move(registry);
}

const BackendRegistry& available_backends() {
  return current();
}

BackendRegistry builtin_backends() {
  BackendRegistry registry;
  registry.add("native", [](const BackendSettings& settings) -> Result<std::unique_ptr<Backend>> {
    return std::unique_ptr<Backend>(std::make_unique<NativeBackend>(settings.native));
  });
  return registry;
}

}  // namespace paddock
