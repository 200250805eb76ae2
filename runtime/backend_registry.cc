#include "backend_registry.h"

#include "native/native_backend.h"

namespace paddock {

void BackendRegistry::add(std::string name, Factory factory) {
  factories_.emplace_back(std::move(name), std::move(factory));
}

Result<std::unique_ptr<Backend>> BackendRegistry::create(const std::string& name,
                                                         const BackendSettings& settings) const {
  for (const auto& [known, factory] : factories_) {
    if (known == name) return factory(settings);
  }
  std::string list;
  for (const auto& known : names()) list += (list.empty() ? "" : ", ") + known;
  return invalid_input("unknown backend '" + name + "'; available: " + list);
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> result;
  for (const auto& entry : factories_) result.push_back(entry.first);
  return result;
}

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
  registry.add("native", [](const BackendSettings&) -> Result<std::unique_ptr<Backend>> {
    return std::unique_ptr<Backend>(std::make_unique<NativeBackend>());
  });
  return registry;
}

}  // namespace paddock
