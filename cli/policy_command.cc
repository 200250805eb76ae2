#include "cli/policy_command.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/host_paths.h"
#include "cli/output.h"
#include "language/policy_store.h"

namespace paddock::cli {
namespace {

nlohmann::json describe(const LanguagePolicy& policy) {
  nlohmann::json limits = nlohmann::json::object();
  Limits effective;
  policy.limits.apply_to(effective);
  limits["timeout_seconds"] = effective.wall_seconds;
  limits["memory_bytes"] = effective.memory_bytes;
  limits["pids"] = effective.pids;
  if (effective.cpus) limits["cpus"] = *effective.cpus;
  if (effective.cpu_seconds) limits["cpu_seconds"] = *effective.cpu_seconds;
  limits["output_bytes"] = effective.output_bytes;
  return {
      {"name", policy.name},
      {"aliases", policy.aliases},
      {"description", policy.description},
      {"source_file", policy.source_file},
      {"compile", policy.compile},
      {"run", policy.run},
      {"env", policy.env},
      {"limits", limits},
      {"network", {{"run", to_string(policy.run_network)}, {"install", policy.install_network}}},
      {"install", policy.install},
      {"seccomp_profile", policy.seccomp_profile},
      {"rootfs", policy.rootfs},
      {"origin", policy.origin}};
}

}  // namespace

int policy_command(const PolicyRequest& request) {
  Environment env = process_environment();
  if (request.action == "check") {
    auto policy = check_policy_file(request.argument, env);
    if (!policy) return fail(policy.error().message);
    write_all(STDOUT_FILENO, request.argument + ": ok, language '" + policy->name + "'\n");
    return 0;
  }
  auto store =
      PolicyStore::load(policy_directories(user_policy_directory(env), request.policy_dir), env);
  if (!store) return fail(store.error().message);
  if (request.action == "show") {
    auto policy = store->find(request.argument);
    if (!policy) return fail(policy.error().message);
    write_all(STDOUT_FILENO, describe(**policy).dump(2) + "\n");
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
  write_all(STDOUT_FILENO, request.json ? all.dump(2) + "\n" : text);
  return 0;
}

}  // namespace paddock::cli
