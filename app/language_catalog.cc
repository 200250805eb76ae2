#include "app/language_catalog.h"

#include "app/code_runner.h"

namespace paddock::app {
namespace {

class Quiet final : public runtime::RunObserver {};

std::string extension_of(const std::string& source_file) {
  auto dot = source_file.rfind('.');
  return dot == std::string::npos ? "" : source_file.substr(dot);
}

}  // namespace

std::vector<LanguageSummary> LanguageCatalog::list() const {
  std::vector<LanguageSummary> languages;
  for (const auto& policy : policies_.all()) {
    languages.push_back({policy.name, policy.aliases, policy.description,
                         extension_of(policy.source_file), toolchains_.unavailable(policy)});
  }
  return languages;
}

core::Result<LanguageDetails> LanguageCatalog::details(const std::string& name) const {
  auto policy = policies_.find(name);
  if (!policy) return policy.error();
  LanguageDetails details;
  details.policy = *policy;
  details.version = toolchain_version(**policy);
  details.file_extension = extension_of((*policy)->source_file);
  details.limits = language::language_limits(**policy, overrides_);
  return details;
}

std::string LanguageCatalog::toolchain_version(const language::LanguagePolicy& policy) const {
  return versions_.get(policy.name, [&]() -> std::string {
    if (policy.version_command.empty()) return "unknown";
    auto spec = runner_.toolchain_version_spec(policy);
    if (!spec) return "unknown";
    Quiet quiet;
    auto result = runner_.backend().run(spec->shape, spec->plan, quiet);
    if (!result || result->outcome != runtime::Outcome::kExited || result->exit_code != 0)
      return "unknown";
    // Some print to stderr (java -version); the first line says it.
    const std::string& text =
        result->stdout_data.data.empty() ? result->stderr_data.data : result->stdout_data.data;
    return text.substr(0, text.find('\n'));
  });
}

}  // namespace paddock::app
