#include "cli/policy_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "cli/host_paths.h"
#include "cli/output.h"
#include "language/policy_store.h"
#include "language/screening.h"

namespace paddock::cli {
namespace {

nlohmann::json describe(const language::LanguagePolicy& policy) {
  nlohmann::json limits = nlohmann::json::object();
  runtime::Limits effective;
  policy.limits.apply_to(effective);
  limits["timeout_seconds"] = effective.wall_seconds;
  limits["memory_bytes"] = effective.memory_bytes;
  limits["pids"] = effective.pids;
  if (effective.cpus) limits["cpus"] = *effective.cpus;
  if (effective.cpu_seconds) limits["cpu_seconds"] = *effective.cpu_seconds;
  limits["output_bytes"] = effective.output_bytes;
  return {{"name", policy.name},
          {"aliases", policy.aliases},
          {"description", policy.description},
          {"source_file", policy.source_file},
          {"compile", policy.compile},
          {"run", policy.run},
          {"env", policy.env},
          {"limits", limits},
          {"network",
           {{"run", runtime::to_string(policy.run_network)}, {"install", policy.install_network}}},
          {"install", policy.install},
          {"seccomp_profile", policy.seccomp_profile},
          {"rootfs", policy.rootfs},
          {"origin", policy.origin}};
}

// Code to screen comes on stdin; more than a call could carry is refused rather than read.
constexpr std::size_t kMaxScreenedCode = 16u << 20;

// `paddock policy screen LANG`: the policy's screening of the code on stdin, as enforce mode
// would judge it (what is unsafe, whatever mode the policy runs in): the findings with the rule
// and pattern that made each, and whether enforce mode refuses the code. Nothing runs. For
// llm-sandbox's is_safe (python/), and for trying a rule out.
int screen_command(const language::LanguagePolicy& policy, bool as_json) {
  std::string code;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(std::string("reading the code from stdin: ") + std::strerror(errno));
    if (got == 0) break;
    code.append(buffer, static_cast<std::size_t>(got));
    if (code.size() > kMaxScreenedCode) return fail("the code on stdin is over 16 MiB");
  }
  language::Screening screening = policy.screening_rules;
  screening.mode = language::ScreeningMode::kEnforce;
  language::ScreeningVerdict verdict = language::screen(screening, policy.source_syntax, code);
  if (!as_json) {
    std::string text;
    for (const auto& finding : verdict.findings) text += language::describe(finding) + "\n";
    text += verdict.blocked
                ? "unsafe: enforce mode refuses it (" + language::blocking_summary(verdict) + ")\n"
                : "safe: nothing at or above " +
                      std::string(language::to_string(verdict.threshold)) + " severity\n";
    core::write_all(STDOUT_FILENO, text);
    return 0;
  }
  nlohmann::json result = language::to_json(verdict);
  result["language"] = policy.name;
  result["policy_mode"] = language::to_string(policy.screening_rules.mode);
  for (auto& finding : result["findings"]) {
    for (const auto& rule : screening.rules) {
      if (rule.id == finding["rule"].get<std::string>()) {
        finding["pattern"] = rule.pattern_text.empty() ? rule.module : rule.pattern_text;
      }
    }
  }
  core::write_all(STDOUT_FILENO, result.dump(2) + "\n");
  return 0;
}

}  // namespace

int policy_command(const PolicyRequest& request) {
  config::Environment env = config::process_environment();
  if (request.action == "check") {
    auto policy = language::check_policy_file(request.argument, env);
    if (!policy) return fail(policy.error().message);
    core::write_all(STDOUT_FILENO, request.argument + ": ok, language '" + policy->name + "'\n");
    return 0;
  }
  auto store = language::PolicyStore::load(
      language::policy_directories(user_policy_directory(env), request.policy_dir), env);
  if (!store) return fail(store.error().message);
  if (request.action == "screen") {
    auto policy = store->find(request.argument);
    if (!policy) return fail(policy.error().message);
    return screen_command(**policy, request.json);
  }
  if (request.action == "show") {
    auto policy = store->find(request.argument);
    if (!policy) return fail(policy.error().message);
    core::write_all(STDOUT_FILENO, describe(**policy).dump(2) + "\n");
    return 0;
  }
  nlohmann::json all = nlohmann::json::array();
  std::string text;
  for (const auto& policy : store->all()) {
    all.push_back(describe(policy));
    std::string aliases;
    for (const auto& alias : policy.aliases) aliases += (aliases.empty() ? "" : ", ") + alias;
    text += policy.name + (aliases.empty() ? "" : " (" + aliases + ")") + ": " +
            policy.description + "\n";
  }
  core::write_all(STDOUT_FILENO, request.json ? all.dump(2) + "\n" : text);
  return 0;
}

}  // namespace paddock::cli
