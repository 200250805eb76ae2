#include "app/server_state.h"

#include "runtime/warm_run.h"

namespace paddock::app {
namespace {

ServiceSettings service_settings(const ServerOptions& options) {
  return {.max_sessions = options.max_sessions,
          .max_session_idle_seconds = options.max_session_idle_seconds,
          .pull_missing_images = options.pull_missing_images,
          .pass_through_env = masked_assignments(options),
          .allow_preview = options.allow_preview || options.ask_preview,
          .preview_ports = {options.preview_ports.first, options.preview_ports.second},
          .max_previews = options.max_previews};
}

// Only a backend that can keep sandboxes warm gets a pool: the others' calls run cold. A memory
// budget of 0 keeps nothing waiting, so no pool.
std::size_t warm_pool_size(const ServerOptions& options, const runtime::Backend& backend) {
  return backend.abilities().warm && options.pool_memory > 0 ? options.warm_per_language : 0;
}

// Ready kernels: where sessions can be live (the native backend), and only for a server that
// passes none of its own environment through. Those values are the session's environment, so a
// kernel started before its session would hold them while it waits.
std::size_t kernel_pool_size(const ServerOptions& options, const runtime::Backend& backend) {
  if (!options.pass_through_env.empty() || !backend.abilities().live) return 0;
  return warm_pool_size(options, backend);
}

// What a waiting sandbox holds, for the pools' budget: 0 when it cannot be measured (it ended).
std::uint64_t memory_of(runtime::Session& waiting) {
  auto usage = waiting.usage();
  return usage ? usage->memory_bytes : 0;
}

}  // namespace

std::vector<std::string> masked_assignments(const ServerOptions& options) {
  std::vector<std::string> values = options.pass_through_env;
  for (const auto& secret : options.secrets) {
    values.push_back(secret.spec.name + "=" + secret.value);
  }
  return values;
}

ServerState::ServerState(ServerOptions options, std::unique_ptr<runtime::Backend> backend,
                         language::PolicyStore policies, std::unique_ptr<AuditLog> audit,
                         Shares shares, std::unique_ptr<state::StateDir> state_dir)
    : options_(std::move(options)),
      state_dir_(std::move(state_dir)),
      resources_(service_settings(options_), std::move(backend), std::move(policies),
                 std::move(audit), std::move(shares)),
      toolchains_(resources_.policies(), resources_.backend().name() == "native"),
      pool_memory_(options_.pool_memory),
      warm_(
          warm_pool_size(options_, resources_.backend()),
          [this](const std::string&, const runtime::SandboxShape& shape,
                 const std::optional<runtime::WarmInterpreter>& interpreter) {
            return runtime::open_warm(resources_.backend(), shape, interpreter);
          },
          [this](std::size_t pool_sandboxes) {
            // Warm sandboxes count against the sessions' cap: they never crowd one out.
            return resources_.sessions().size() + pool_sandboxes + kernels_.size() <
                   options_.max_sessions;
          },
          &pool_memory_, [](runtime::Session& waiting) { return memory_of(waiting); }),
      kernels_(
          kernel_pool_size(options_, resources_.backend()),
          [this](const std::string& language, const runtime::SandboxShape& shape,
                 const std::optional<runtime::WarmInterpreter>&) {
            return open_ready_kernel(language, shape);
          },
          [this](std::size_t pool_sandboxes) {
            return resources_.sessions().size() + pool_sandboxes + warm_.size() <
                   options_.max_sessions;
          },
          &pool_memory_, [](ReadyKernel& ready) { return memory_of(*ready.session); }, "kernel"),
      runner_(options_, resources_.backend(), resources_.images(), resources_.secrets(),
              resources_.audit(), warm_),
      kept_(options_, state_dir_.get(), resources_.sessions(), resources_.policies(), runner_,
            warm_, kernels_, resources_.secrets(), resources_.audit()),
      code_(resources_.policies(), toolchains_, resources_.sessions(), runner_, resources_.audit(),
            options_.default_language, open_questions_, options_.ask_network),
      sessions_(options_, resources_.policies(), toolchains_, resources_.sessions(), kept_, runner_,
                warm_, kernels_, resources_.shares(), resources_.secrets(), resources_.audit()),
      catalog_(resources_.policies(), toolchains_, spec_overrides(options_), runner_,
               toolchain_versions_),
      exporter_(kept_, resources_.shares(), resources_.backend(), resources_.audit()),
      snapshots_(kept_),
      transfers_(resources_.sessions(), resources_.shares(), options_.transfer_caps,
                 resources_.backend(), resources_.audit()),
      services_{options_,
                resources_.policies(),
                resources_.backend(),
                resources_.sessions(),
                resources_.secrets(),
                resources_.shares(),
                kept_,
                runner_,
                code_,
                sessions_,
                catalog_,
                exporter_,
                snapshots_,
                transfers_,
                resources_.audit(),
                open_questions_,
                [this] { return pools_summary(); }} {
  if (state_dir_) {
    resources_.sessions().set_reopener([this](const std::string& id) { return kept_.reopen(id); });
  }
}

core::Status check_ready_kernels(const ServerOptions& options,
                                 const language::PolicyStore& policies) {
  for (const auto& [language, count] : options.ready_kernels) {
    auto policy = policies.find(language);
    if (!policy) return core::invalid_input("--ready-kernels: " + policy.error().message);
    if ((*policy)->kernel.name.empty()) {
      return core::invalid_input("--ready-kernels: " + language +
                                 " has no live sessions (no Jupyter kernel), so no kernel can be "
                                 "made ready; name python or r");
    }
  }
  return {};
}

void ServerState::start() {
  // What paddock doctor says of the languages, once: a missing one is a warning.
  for (const auto& line : toolchains_.log_lines(resources_.policies())) {
    log(line.starts_with("languages ready") ? LogLevel::kInfo : LogLevel::kWarning, line);
  }
  kept_.remove_unused();
  auto policy = resources_.policies().find(options_.default_language);
  if (policy) runner_.prepare_warm_sandboxes(**policy);
  for (const auto& [language, count] : options_.ready_kernels) {
    auto kernel_policy = resources_.policies().find(language);
    if (count == 0 || !kernel_policy) continue;
    // The shape create_session opens a plain live session in: the ready kernel is taken only
    // by a session of this very shape.
    auto spec = runner_.session_spec(**kernel_policy, {});
    if (!spec) {
      log(LogLevel::kWarning, "no " + language + " kernel is made ready: " + spec.error().message);
      continue;
    }
    kernels_.prepare((*kernel_policy)->name, spec->shape, std::nullopt, count, kReadyKernelsAfter);
  }
}

ServerState::~ServerState() {
  // The pools' threads first: the kernels' opener uses runner_, and each pool's room reads the
  // other's size, and both go before the pools do.
  kernels_.stop();
  warm_.stop();
}

PoolsSummary ServerState::pools_summary() {
  PoolsSummary summary{pool_memory_.budget(), pool_memory_.held(), warm_.holdings("warm")};
  auto kernels = kernels_.holdings("ready_kernel");
  summary.holdings.insert(summary.holdings.end(), kernels.begin(), kernels.end());
  return summary;
}

core::Result<std::unique_ptr<ReadyKernel>> ServerState::open_ready_kernel(
    const std::string& language, const runtime::SandboxShape& shape) {
  auto policy = resources_.policies().find(language);
  if (!policy) return policy.error();
  auto spec = runner_.session_spec(**policy, {}, {});
  if (!spec) return spec.error();
  // The language's session is made otherwise by now (an image replaced): its next
  // create_session sets the new shape.
  if (!(spec->shape == shape)) return core::Error{ESTALE, "the language's sessions changed shape"};
  auto session = resources_.backend().open_session(spec->shape, spec->plan);
  if (!session) return session.error();
  auto kernel = runtime::LiveKernel::start(**session, (*policy)->kernel, kKernelReadySeconds);
  if (!kernel) return kernel.error();
  auto ready = std::make_unique<ReadyKernel>();
  ready->session = std::move(*session);
  ready->kernel = std::move(*kernel);
  return ready;
}

}  // namespace paddock::app
