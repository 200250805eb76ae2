#include "cli/backend_registry.h"

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

}  // namespace paddock
