#include "mcp/language_catalog.h"

#include <map>
#include <mutex>

#include "app/code_runner.h"
#include "core/text.h"

namespace paddock::mcp {
namespace {

class Quiet final : public RunObserver {};

std::string toolchain_version(app::ServerState& state, const LanguagePolicy& policy) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  {
    std::lock_guard lock(mutex);
    if (auto found = known.find(policy.name); found != known.end()) return found->second;
  }
  std::string version = "unknown";
  if (!policy.version_command.empty()) {
    auto spec = toolchain_version_spec(state, policy);
    if (spec) {
      Quiet quiet;
      auto result = state.backend().run(spec->shape, spec->plan, quiet);
      if (result && result->outcome == Outcome::kExited && result->exit_code == 0) {
        // Some print to stderr (java -version); the first line says it.
        std::string text =
            result->stdout_data.data.empty() ? result->stderr_data.data : result->stdout_data.data;
        version = text.substr(0, text.find('\n'));
      }
    }
  }
  std::lock_guard lock(mutex);
  known[policy.name] = version;
  return version;
}

std::string extension_of(const std::string& source_file) {
  auto dot = source_file.rfind('.');
  return dot == std::string::npos ? "" : source_file.substr(dot);
}

}  // namespace

json language_list(const app::ServerState& state) {
  json languages = json::array();
  for (const auto& policy : state.policies().all()) {
    languages.push_back({{"name", policy.name},
                         {"aliases", policy.aliases},
                         {"description", policy.description},
                         {"file_extension", extension_of(policy.source_file)}});
  }
  return languages;
}

json limits_summary(const Limits& limits, NetworkMode network) {
  return {{"timeout_seconds", limits.wall_seconds},
          {"memory_bytes", limits.memory_bytes},
          {"pids", limits.pids},
          {"output_bytes", limits.output_bytes},
          {"work_dir_bytes", limits.work_bytes},
          {"network", to_string(network)}};
}

json language_details(app::ServerState& state, const LanguagePolicy& policy) {
  Limits defaults = language_limits(policy, spec_overrides(state.options()));
  json limits = limits_summary(defaults, policy.run_network);
  limits["tmp_bytes"] = defaults.tmp_bytes;
  return {{"name", policy.name},
          {"aliases", policy.aliases},
          {"description", policy.description},
          {"version", toolchain_version(state, policy)},
          {"file_extension", extension_of(policy.source_file)},
          {"package_manager",
           policy.package_manager.empty() ? json(nullptr) : json(policy.package_manager)},
          {"libraries_supported", !policy.install.empty()},
          {"preinstalled", policy.preinstalled},
          {"compiled", !policy.compile.empty()},
          {"example", policy.example},
          {"limits", std::move(limits)}};
}

std::string preinstalled_lines(const PolicyStore& policies) {
  std::string lines;
  for (const auto& policy : policies.all()) {
    if (policy.preinstalled.empty()) continue;
    lines += (lines.empty() ? "" : " ") + std::string("Preinstalled for ") + policy.name + ": " +
             join(policy.preinstalled, ", ") + ".";
  }
  return lines;
}

}  // namespace paddock::mcp
