#include "app/toolchains.h"

#include "core/text.h"

namespace paddock::app {

Toolchains::Toolchains(const language::PolicyStore& policies, bool host_root) {
  if (!host_root) return;
  for (const auto& policy : policies.all()) {
    checks_.emplace(policy.name, language::check_toolchain(policy));
  }
}

const language::ToolchainCheck& Toolchains::of(const language::LanguagePolicy& policy) const {
  auto found = checks_.find(policy.name);
  return found == checks_.end() ? unchecked_ : found->second;
}

std::string Toolchains::unavailable(const language::LanguagePolicy& policy) const {
  return language::unavailable_reason(of(policy), policy);
}

std::vector<std::string> Toolchains::log_lines(const language::PolicyStore& policies) const {
  std::vector<std::string> ready;
  std::vector<std::string> lines;
  for (const auto& policy : policies.all()) {
    const language::ToolchainCheck& check = of(policy);
    if (!check.checked) continue;
    if (check.complete()) {
      ready.push_back(policy.name);
    } else {
      lines.push_back("language " + policy.name + ": " + language::describe(check, policy));
    }
  }
  if (!ready.empty()) lines.insert(lines.begin(), "languages ready: " + core::join(ready, ", "));
  return lines;
}

}  // namespace paddock::app
