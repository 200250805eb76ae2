#include "cli/doctor_command.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/mcp_settings.h"
#include "cli/output.h"
#include "core/units.h"
#include "language/policy_store.h"
#include "language/toolchain_check.h"
#include "runtime/native/host_probe.h"

namespace paddock::cli {
namespace {

struct BackendCheck {
  std::string name;
  bool reachable = false;
  std::string detail;
};

// Every backend but native (which the host report covers) is asked to connect: the engines
// say where they listen and why they cannot be reached.
std::vector<BackendCheck> check_backends() {
  std::vector<BackendCheck> checks;
  BackendSettings settings = backend_settings(config::process_environment());
  for (const auto& name : available_backends().names()) {
    if (name == "native") continue;
    auto backend = available_backends().create(name, settings);
    checks.push_back({name, backend.ok(), backend ? "reachable" : backend.error().message});
  }
  return checks;
}

// What `paddock mcp` would keep waiting for calls with this environment's settings (its
// variables; flags are the server's own), and the memory budget all of it stays within.
struct PoolsCheck {
  std::string error;  // a setting in the environment is wrong
  std::uint64_t budget = 0;
  std::size_t warm = 0;
  std::string ready_kernels;
};

PoolsCheck check_pools() {
  auto options = resolve_server_options({}, config::process_environment());
  if (!options) return {options.error().message, 0, 0, ""};
  PoolsCheck check{"", options->pool_memory, options->warm_per_language, ""};
  for (const auto& [language, count] : options->ready_kernels) {
    check.ready_kernels +=
        (check.ready_kernels.empty() ? "" : ",") + language + "=" + std::to_string(count);
  }
  if (check.ready_kernels.empty()) check.ready_kernels = "none";
  return check;
}

std::string pools_text(const PoolsCheck& pools) {
  if (!pools.error.empty()) return "\npools:\n  not known: " + pools.error + "\n";
  return "\npools (what paddock mcp keeps waiting for calls, with this environment's settings):\n"
         "  memory budget   " +
         core::format_size(pools.budget) +
         " of PSS for all of them together (--pool-memory, PADDOCK_POOL_MEMORY); get_session "
         "shows what a running server holds\n"
         "  warm sandboxes  " +
         std::to_string(pools.warm) + " per language in use (--warm)\n" + "  ready kernels   " +
         pools.ready_kernels + " (--ready-kernels)\n";
}

// Each language the server would offer (the built-in policies and the user's), and what of its
// toolchain this machine has.
struct LanguagesCheck {
  std::string error;  // the policies could not be read
  std::optional<language::PolicyStore> store;
  std::vector<language::ToolchainCheck> checks;  // one per store->all(), in its order

  // Each policy with its check.
  template <typename Each>
  void each(Each&& each) const {
    for (std::size_t i = 0; i < checks.size(); ++i) each(store->all()[i], checks[i]);
  }
};

LanguagesCheck check_languages() {
  LanguagesCheck check;
  config::Environment env = config::process_environment();
  auto options = resolve_server_options({}, env);
  if (!options) return {options.error().message, std::nullopt, {}};
  auto store = language::PolicyStore::load(
      language::policy_directories(options->user_policy_dir, options->policy_dir), env);
  if (!store) return {store.error().message, std::nullopt, {}};
  check.store.emplace(std::move(*store));
  for (const auto& policy : check.store->all()) {
    check.checks.push_back(language::check_toolchain(policy));
  }
  return check;
}

std::string languages_text(const LanguagesCheck& languages) {
  if (!languages.error.empty()) return "\nlanguages:\n  not known: " + languages.error + "\n";
  std::string text = "\nlanguages (their toolchains in the host's /usr, which sandboxes see):\n";
  languages.each(
      [&](const language::LanguagePolicy& policy, const language::ToolchainCheck& check) {
        text += "  " + policy.name +
                std::string(13 - std::min<std::size_t>(12, policy.name.size()), ' ') +
                language::describe(check, policy) + "\n";
      });
  return text;
}

}  // namespace

int doctor_command(const DoctorRequest& request) {
  native::HostReport report = native::probe_host();
  std::vector<BackendCheck> backends = check_backends();
  PoolsCheck pools = check_pools();
  LanguagesCheck languages = check_languages();
  if (request.json) {
    nlohmann::json out = native::to_json(report);
    for (const auto& check : backends) {
      out["backends"][check.name] = {{"reachable", check.reachable}, {"detail", check.detail}};
    }
    out["pools"] = pools.error.empty() ? nlohmann::json{{"memory_budget_bytes", pools.budget},
                                                        {"warm_per_language", pools.warm},
                                                        {"ready_kernels", pools.ready_kernels}}
                                       : nlohmann::json{{"error", pools.error}};
    if (!languages.error.empty()) out["languages"] = {{"error", languages.error}};
    languages.each(
        [&](const language::LanguagePolicy& policy, const language::ToolchainCheck& check) {
          out["languages"][policy.name] = {{"runs", check.runs()},
                                           {"complete", check.complete()},
                                           {"missing",
                                            {{"run", check.run},
                                             {"install", check.install},
                                             {"libraries", check.libraries},
                                             {"kernel", check.kernel}}},
                                           {"summary", language::describe(check, policy)}};
        });
    core::write_all(STDOUT_FILENO, out.dump(2) + "\n");
  } else {
    std::string text =
        native::to_text(report) + "\nbackends:\n  native       always (this report)\n";
    for (const auto& check : backends) {
      text += "  " + check.name +
              std::string(13 - std::min<std::size_t>(12, check.name.size()), ' ') +
              (check.reachable ? "reachable" : "unreachable: " + check.detail) + "\n";
    }
    core::write_all(STDOUT_FILENO, text + languages_text(languages) + pools_text(pools));
  }
  bool ready =
      report.user_namespaces.available && report.seccomp.available && report.pidfd.available;
  return ready ? 0 : 1;
}

}  // namespace paddock::cli
