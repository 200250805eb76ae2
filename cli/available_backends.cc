#include "cli/available_backends.h"

#include "runtime/native/native_backend.h"

namespace paddock::cli {
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
  registry.add(
      "native",
      [](const BackendSettings& settings) -> core::Result<std::unique_ptr<runtime::Backend>> {
        return std::unique_ptr<runtime::Backend>(
            std::make_unique<native::NativeBackend>(settings.native));
      });
  return registry;
}

}  // namespace paddock::cli
