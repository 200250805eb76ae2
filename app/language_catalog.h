#pragma once

// The languages this server runs, as a model is told about them: the list, and one language's
// details with its toolchain's version as a sandbox sees it and the limits its runs get.
// mcp/language_catalog.h renders these as JSON.

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "app/toolchains.h"
#include "core/result.h"
#include "language/policy.h"
#include "language/policy_store.h"
#include "language/spec_builder.h"
#include "runtime/backend.h"

namespace paddock::app {

class CodeRunner;

// One language as the list shows it.
struct LanguageSummary {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::string file_extension;  // ".py"; empty when the source file has none
  std::string unavailable;  // why it cannot run on this machine (app/toolchains.h); empty: it can
};

// One language in full.
struct LanguageDetails {
  const language::LanguagePolicy* policy = nullptr;  // the server's, alive as long as it
  std::string version;                               // the toolchain's first line, or "unknown"
  std::string file_extension;
  runtime::Limits limits;  // what a fresh run gets under the server's options
};

// Each language's toolchain version, asked once per server: asking starts a sandbox.
class ToolchainVersions {
 public:
  // `language`'s version, from `ask` only the first time. Two first callers may both ask.
  template <typename Ask>
  std::string get(const std::string& language, Ask&& ask) {
    {
      std::lock_guard lock(mutex_);
      if (auto found = known_.find(language); found != known_.end()) return found->second;
    }
    std::string version = ask();
    std::lock_guard lock(mutex_);
    return known_.emplace(language, std::move(version)).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> known_;
};

class LanguageCatalog {
 public:
  // `overrides`: the server's options as the spec builder takes them (the limits shown).
  LanguageCatalog(const language::PolicyStore& policies, const Toolchains& toolchains,
                  language::SpecOverrides overrides, const CodeRunner& runner,
                  ToolchainVersions& versions)
      : policies_(policies),
        toolchains_(toolchains),
        overrides_(std::move(overrides)),
        runner_(runner),
        versions_(versions) {}

  [[nodiscard]] std::vector<LanguageSummary> list() const;
  // `name` is a language's name or alias; the error is the policy store's.
  [[nodiscard]] core::Result<LanguageDetails> details(const std::string& name) const;

 private:
  std::string toolchain_version(const language::LanguagePolicy& policy) const;

  const language::PolicyStore& policies_;
  const Toolchains& toolchains_;
  const language::SpecOverrides overrides_;
  const CodeRunner& runner_;  // builds the version's spec and runs it on its backend
  ToolchainVersions& versions_;
};

}  // namespace paddock::app
