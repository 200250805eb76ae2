#include "language/language_run.h"

#include <regex>

#include <nlohmann/json.hpp>

#include "language/builtin_policies.h"

namespace paddock {
namespace {

std::string substitute(std::string text, const std::string& file, const std::string& class_name) {
  for (const auto& [placeholder, value] :
       {std::pair<std::string, std::string>{"{file}", file}, {"{class}", class_name}}) {
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  return text;
}

std::vector<std::string> substitute_all(const std::vector<std::string>& argv,
                                        const std::string& file, const std::string& class_name) {
  std::vector<std::string> out;
  for (const auto& arg : argv) out.push_back(substitute(arg, file, class_name));
  return out;
}

}  // namespace

std::string java_public_class(const std::string& source) {
  // So that a class named in a comment is not mistaken for the real one.
  std::string code = without_comments(source, "java");
  static const std::regex kPublicClass(
      R"((^|[\s;}])public\s+((final|abstract|sealed|strictfp)\s+)*(class|record|enum|interface)\s+([A-Za-z_$][A-Za-z0-9_$]*))");
  std::smatch match;
  if (std::regex_search(code, match, kPublicClass)) return match[5].str();
  return "Main";
}

Result<SandboxSpec> language_spec(const LanguagePolicy& policy, const std::string& code,
                                  const std::vector<std::string>& program_args) {
  SandboxSpec spec;
  std::string class_name =
      policy.source_file.find("{class}") != std::string::npos ||
              policy.run.end() != std::find_if(policy.run.begin(), policy.run.end(),
                                               [](const std::string& arg) {
                                                 return arg.find("{class}") != std::string::npos;
                                               })
          ? java_public_class(code)
          : "Main";
  std::string file = substitute(policy.source_file, "", class_name);
  spec.files.push_back({file, code, 0644});
  if (!policy.compile.empty())
    spec.prelude.push_back(substitute_all(policy.compile, file, class_name));
  spec.argv = substitute_all(policy.run, file, class_name);
  spec.argv.insert(spec.argv.end(), program_args.begin(), program_args.end());
  for (const auto& [name, value] : policy.env) spec.env.push_back(name + "=" + value);
  policy.limits.apply_to(spec.limits);
  for (const auto& [path, name] : policy.support_files) {
    spec.files.push_back({path, std::string(*builtin_support_file(name)), 0644});
  }
  spec.collect.directories = policy.collect;
  spec.network = policy.run_network;
  if (policy.seccomp_profile != "default") spec.seccomp_profile_path = policy.seccomp_profile;
  return spec;
}

LanguageRunResult label_result(const LanguagePolicy& policy, RunResult run,
                               std::optional<ScreeningVerdict> screening) {
  LanguageRunResult result;
  result.language = policy.name;
  result.phase = !policy.compile.empty() && run.step == 0 ? "compile" : "run";
  result.run = std::move(run);
  if (screening && screening->mode != ScreeningMode::kOff) result.screening = std::move(screening);
  return result;
}

nlohmann::json to_json(const LanguageRunResult& result) {
  nlohmann::json json = to_json(result.run);
  json["language"] = result.language;
  json["phase"] = result.phase;
  if (result.screening) json["screening"] = to_json(*result.screening);
  return json;
}

nlohmann::json blocked_result(const LanguagePolicy& policy, const ScreeningVerdict& verdict) {
  return {{"outcome", "blocked"},
          {"exit_code", kScreeningBlockedExitCode},
          {"language", policy.name},
          {"screening", to_json(verdict)}};
}

}  // namespace paddock
