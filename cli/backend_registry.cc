#include "cli/backend_registry.h"

namespace paddock::cli {

void BackendRegistry::add(std::string name, Factory factory) {
  factories_.emplace_back(std::move(name), std::move(factory));
}

core::Result<std::unique_ptr<runtime::Backend>> BackendRegistry::create(
    const std::string& name, const BackendSettings& settings) const {
  for (const auto& [known, factory] : factories_) {
    if (known == name) return factory(settings);
  }
  std::string list;
  for (const auto& known : names()) list += (list.empty() ? "" : ", ") + known;
  return core::invalid_input("unknown backend '" + name + "'; available: " + list);
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> result;
  for (const auto& entry : factories_) result.push_back(entry.first);
  return result;
}

}  // namespace paddock::cli
