#include "mcp/serve.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include "app/log.h"
#include "app/server_state.h"
#include "mcp/policy_overrides.h"
#include "mcp/server.h"
#include "mcp/tool_registry.h"

namespace paddock::mcp {
namespace {

// Sessions kept across restarts: where the backend can, and the directory opens. One the user
// named must open (an error otherwise); the default one is skipped with a warning (a home that
// cannot be written), and so is a backend that keeps no sessions: null then.
core::Result<std::unique_ptr<state::StateDir>> open_state_dir(const app::ServerOptions& options,
                                                              const runtime::Backend& backend) {
  if (options.state_dir.empty() || !backend.abilities().kept_sessions) {
    return std::unique_ptr<state::StateDir>();
  }
  auto opened = state::StateDir::open(options.state_dir);
  if (opened) return std::move(*opened);
  if (options.state_dir_set) return opened.error();
  log(app::LogLevel::kWarning, opened.error().message +
                                   "; sessions are not kept across restarts (--state-dir sets "
                                   "where they are)");
  return std::unique_ptr<state::StateDir>();
}

}  // namespace

int serve_stdio(const app::ServerOptions& options, const BackendConnector& connect_backend,
                const SettingWording& wording) {
  auto level = app::log_level_from_name(options.log_level);
  if (!level) {
    log(app::LogLevel::kError, "--log-level '" + options.log_level +
                                   "' is not one of debug, info, notice, warning, error");
    return 2;
  }
  app::set_log_level(*level);
  // The log is masked from its first line, with what results and the audit log are masked with:
  // a mask of --pass-through-env alone let a brokered value through to stderr.
  app::SecretMask secrets(masked_assignments(options));
  app::mask_log_with(secrets);
  for (const auto& name : secrets.unmasked()) {
    log(app::LogLevel::kWarning, name + "'s value is shorter than " +
                                     std::to_string(app::SecretMask::kShortest) +
                                     " characters, too short to be masked in results");
  }
  auto policies = language::PolicyStore::load(
      language::policy_directories(options.user_policy_dir, options.policy_dir),
      options.policy_variables);
  if (!policies) {
    log(app::LogLevel::kError, policies.error().message);
    return 2;
  }
  if (auto applied = apply_server_options(options, *policies); !applied) {
    log(app::LogLevel::kError, applied.error().message);
    return 2;
  }
  if (auto ready = app::check_ready_kernels(options, *policies); !ready) {
    log(app::LogLevel::kError, ready.error().message);
    return 2;
  }
  std::unique_ptr<app::AuditLog> audit;
  if (options.audit_log) {
    auto opened = app::AuditLog::open(*options.audit_log);
    if (!opened) {
      log(app::LogLevel::kError, opened.error().message);
      return 2;
    }
    audit = std::move(*opened);
  }
  auto shares = app::Shares::open(options.shares, options.home);
  if (!shares) {
    log(app::LogLevel::kError, shares.error().message);
    return 2;
  }
  auto backend = connect_backend();
  if (!backend) {
    log(app::LogLevel::kError, backend.error().message);
    return 2;
  }
  // Refused here rather than at every call: a server that could never ask should not start as
  // if it would.
  if (options.ask_network && !(*backend)->abilities().asks_about_hosts) {
    log(app::LogLevel::kError, "--ask network: the " + std::string((*backend)->name()) +
                                   " backend's sandboxes do not go through paddock's egress "
                                   "proxy, so nobody could be asked; leave it out and name hosts "
                                   "with --allow-host, or use the native backend");
    return 2;
  }
  auto state_dir = open_state_dir(options, **backend);
  if (!state_dir) {
    log(app::LogLevel::kError, state_dir.error().message);
    return 2;
  }
  // Termination signals are read by the server loop through a signalfd: block them before any
  // thread starts, so every thread inherits the mask. A client that goes away must not kill us
  // with SIGPIPE mid-cleanup.
  sigset_t termination;
  sigemptyset(&termination);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&termination, sig);
  pthread_sigmask(SIG_BLOCK, &termination, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // One malloc arena for every thread: with one per worker, each kept what its calls freed, and
  // the server grew by about 6 MB over 200 calls (with one, under 1 MB). Its threads mostly wait
  // on sandboxes, so they hardly contend for it.
  mallopt(M_ARENA_MAX, 1);
  bool keeps_sessions = *state_dir != nullptr;
  app::ServerState state(options, std::move(*backend), std::move(*policies), std::move(audit),
                         std::move(*shares), std::move(*state_dir));
  state.start();
  auto tools = builtin_tools(state.options(), state.services().policies,
                             tool_offer(state.options(), keeps_sessions));
  if (!tools) {
    log(app::LogLevel::kError, tools.error().message);
    return 2;
  }
  Server server(state.services(), state.kernels(), *tools, STDIN_FILENO, STDOUT_FILENO, wording);
  return server.run();
}

}  // namespace paddock::mcp
