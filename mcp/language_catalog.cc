#include "mcp/language_catalog.h"

#include "core/text.h"

namespace paddock::mcp {

json language_list(const std::vector<app::LanguageSummary>& languages) {
  json listed = json::array();
  for (const auto& language : languages) {
    json item = {{"name", language.name},
                 {"aliases", language.aliases},
                 {"description", language.description},
                 {"file_extension", language.file_extension},
                 {"available", language.unavailable.empty()}};
    if (!language.unavailable.empty()) item["unavailable"] = language.unavailable;
    listed.push_back(std::move(item));
  }
  return listed;
}

json limits_summary(const runtime::Limits& limits, runtime::NetworkMode network) {
  return {{"timeout_seconds", limits.wall_seconds},
          {"memory_bytes", limits.memory_bytes},
          {"pids", limits.pids},
          {"output_bytes", limits.output_bytes},
          {"work_dir_bytes", limits.work_bytes},
          {"network", runtime::to_string(network)}};
}

json language_details(const app::LanguageDetails& details) {
  const language::LanguagePolicy& policy = *details.policy;
  json limits = limits_summary(details.limits, policy.run_network);
  limits["tmp_bytes"] = details.limits.tmp_bytes;
  return {{"name", policy.name},
          {"aliases", policy.aliases},
          {"description", policy.description},
          {"version", details.version},
          {"file_extension", details.file_extension},
          {"package_manager",
           policy.package_manager.empty() ? json(nullptr) : json(policy.package_manager)},
          {"libraries_supported", !policy.install.empty()},
          {"preinstalled", policy.preinstalled},
          {"compiled", !policy.compile.empty()},
          {"example", policy.example},
          {"limits", std::move(limits)}};
}

std::string preinstalled_lines(const language::PolicyStore& policies) {
  std::string lines;
  for (const auto& policy : policies.all()) {
    if (policy.preinstalled.empty()) continue;
    lines += (lines.empty() ? "" : " ") + std::string("Preinstalled for ") + policy.name + ": " +
             core::join(policy.preinstalled, ", ") + ".";
  }
  return lines;
}

}  // namespace paddock::mcp
