#pragma once

// Every language paddock knows: the built-in policies (policies/*.json, embedded at build time),
// then $XDG_CONFIG_HOME/paddock/policies, then --policy-dir. A later file for a language merges
// over the earlier ones field by field (RFC 7396 JSON merge patch: objects merge, everything
// else replaces); a new name adds a language. A broken file fails the whole load, naming the
// file and the JSON pointer: nothing is ever half-applied.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "language/policy.h"

namespace paddock::language {

class PolicyStore {
 public:
  // `variables`: where the policies' install mirrors are looked up (policy.h).
  static core::Result<PolicyStore> load(const std::vector<std::string>& directories,
                                        const VariableLookup& variables = {});
  // Only the language asked for is checked and converted: what a run needs, without compiling
  // every other language's screening patterns (about 5 ms). Every file is still read and must
  // be valid JSON.
  static core::Result<LanguagePolicy> load_one(const std::vector<std::string>& directories,
                                               std::string_view name,
                                               const VariableLookup& variables = {});

  // By name or alias, case-insensitively; the error lists the languages there are.
  [[nodiscard]] core::Result<const LanguagePolicy*> find(std::string_view name) const;
  [[nodiscard]] const std::vector<LanguagePolicy>& all() const { return policies_; }
  // Changes every policy in place: a server's settings over what the files say.
  void change_all(const std::function<void(LanguagePolicy&)>& change) {
    for (auto& policy : policies_) change(policy);
  }

 private:
  std::vector<LanguagePolicy> policies_;
};

// The user's policy directory (~/.config/paddock/policies, found by the command line), then
// `policy_dir` when given.
std::vector<std::string> policy_directories(const std::optional<std::string>& user_dir,
                                            const std::optional<std::string>& policy_dir);

// Checks one policy file as `paddock policy check` does: on its own when it names a new
// language, merged over the built-in one when it names an existing language.
core::Result<LanguagePolicy> check_policy_file(const std::string& path,
                                               const VariableLookup& variables = {});
// The same for a file's text, `origin` naming it in messages.
core::Result<LanguagePolicy> check_policy_text(std::string_view text, const std::string& origin,
                                               const VariableLookup& variables = {});

}  // namespace paddock::language
