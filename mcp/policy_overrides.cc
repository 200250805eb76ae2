#include "mcp/policy_overrides.h"

#include <map>

namespace paddock::mcp {

core::Status apply_server_options(const app::ServerOptions& options,
                                  language::PolicyStore& policies) {
  if (auto language = policies.find(options.default_language); !language) {
    return core::invalid_input("default language: " + language.error().message);
  }
  std::map<std::string, std::string> images;  // policy name -> reference
  for (const auto& [language, reference] : options.images) {
    auto policy = policies.find(language);
    if (!policy) {
      return core::invalid_input("the image for '" + language + "' (" + reference +
                                 "): " + policy.error().message);
    }
    images[(*policy)->name] = reference;
  }
  policies.change_all([&](language::LanguagePolicy& policy) {
    policy.limits.merge(options.limits);
    if (options.network) policy.run_network = *options.network;
    if (options.install_network) policy.install_network = *options.install_network;
    if (auto image = images.find(policy.name); image != images.end()) {
      policy.rootfs = "image:" + image->second;
    }
  });
  return {};
}

}  // namespace paddock::mcp
