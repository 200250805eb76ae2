#include "language/warm_spec.h"

#include <algorithm>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "language/builtin_policies.h"
#include "language/screening.h"

namespace paddock::language {

core::Status check_preload_name(const std::string& name) {
  static const RE2 dotted(R"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)");
  if (name.size() <= 200 && RE2::FullMatch(name, dotted)) return {};
  return core::invalid_input("'" + name +
                             "' is not a module name to preload; use dotted names, e.g. " +
                             "numpy or matplotlib.pyplot");
}

bool wants_preload(const LanguagePolicy& policy, const std::vector<std::string>& preload,
                   const std::string& code) {
  if (preload.empty()) return false;
  std::vector<std::string> triggers = policy.warm.preload_when;
  if (triggers.empty()) {
    for (const auto& name : preload) triggers.push_back(name.substr(0, name.find('.')));
  }
  for (const auto& imported : imported_module_names(policy.source_syntax, code)) {
    std::string top = imported.substr(0, imported.find('.'));
    if (std::find(triggers.begin(), triggers.end(), top) != triggers.end()) return true;
  }
  return false;
}

std::optional<runtime::WarmInterpreter> warm_interpreter(const LanguagePolicy& policy,
                                                         const runtime::SandboxShape& shape,
                                                         const runtime::RunPlan& empty_call,
                                                         const std::vector<std::string>& preload) {
  if (policy.warm.loader.empty() || empty_call.steps.size() != 1 || shape.limits.cpu_seconds) {
    return std::nullopt;
  }
  const std::string_view* loader = builtin_support_file(policy.warm.loader);
  if (loader == nullptr || empty_call.files.empty()) return std::nullopt;
  // The list as a JSON array of strings, which is also a python list: checked names either way.
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& name : preload) {
    if (check_preload_name(name)) modules.push_back(name);
  }
  // The names of the variables it starts with, for a loader whose language changes some at its
  // start (R's Renviron): the call has them too, with the same values (runtime::fits).
  static const RE2 variable_name("[A-Za-z_][A-Za-z0-9_]*");
  nlohmann::json started = nlohmann::json::array();
  for (const auto* env : {&empty_call.env, &policy.warm.start_env}) {
    for (const auto& entry : *env) {
      std::string name = entry.substr(0, entry.find('='));
      if (RE2::FullMatch(name, variable_name)) started.push_back(name);
    }
  }
  std::string text(*loader);
  constexpr std::string_view kPlaceholder = "PADDOCK_PRELOAD";
  auto at = text.rfind(kPlaceholder);
  if (at == std::string::npos) return std::nullopt;
  text.replace(at, kPlaceholder.size(), modules.dump());
  constexpr std::string_view kStartedPlaceholder = "PADDOCK_START_ENV";
  if (auto named = text.rfind(kStartedPlaceholder); named != std::string::npos) {
    text.replace(named, kStartedPlaceholder.size(), started.dump());
  }
  runtime::WarmInterpreter interpreter;
  interpreter.program = empty_call.steps.front();
  // Where the call's source goes: its file replaces the loader there.
  interpreter.loader = {empty_call.files.front().path, std::move(text), 0644};
  interpreter.env = empty_call.env;
  interpreter.startup_variables = policy.warm.startup_env;
  interpreter.start_env = policy.warm.start_env;
  interpreter.streams_from_start = policy.warm.streams_from_start;
  interpreter.call_on_pipes = policy.warm.call_on_pipes;
  return interpreter;
}

}  // namespace paddock::language
