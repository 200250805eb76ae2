#include "cli/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/code_gate.h"
#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/host_paths.h"
#include "cli/output.h"
#include "cli/published_run.h"
#include "cli/stdin_relay.h"
#include "config/setting_words.h"
#include "core/text.h"
#include "language/language_run.h"
#include "language/policy_store.h"
#include "language/refusal_lines.h"
#include "language/spec_builder.h"

namespace paddock::cli {
namespace {

const runtime::CancellationToken* g_cancellation = nullptr;
volatile std::sig_atomic_t g_received_signal = 0;

void on_termination_signal(int sig) {
  g_received_signal = sig;
  if (g_cancellation != nullptr) g_cancellation->cancel();
}

// Streams the program's output to ours as it arrives, all of it, unless a JSON result was asked
// for (the output limit caps what a result keeps, not what passes through).
class CliObserver final : public runtime::RunObserver {
 public:
  explicit CliObserver(bool stream) : stream_(stream) {}
  void on_output(runtime::StreamId stream, std::string_view chunk) override {
    if (!stream_) return;
    core::write_all(stream == runtime::StreamId::kStdout ? STDOUT_FILENO : STDERR_FILENO, chunk);
  }
  [[nodiscard]] const runtime::CancellationToken* cancellation() const override { return &token_; }
  [[nodiscard]] const runtime::CancellationToken& token() const { return token_; }

 private:
  bool stream_;
  runtime::CancellationToken token_;
};

void report_to_stderr(const runtime::RunResult& result, const runtime::SandboxShape& shape,
                      const runtime::RunPlan& plan) {
  switch (result.outcome) {
    case runtime::Outcome::kTimedOut:
      note("timed out after " + std::to_string(result.duration_ms) +
           " ms (--timeout); the sandbox was killed");
      break;
    case runtime::Outcome::kExecFailed:
      note(result.exec_error);
      break;
    case runtime::Outcome::kCancelled:
      note("cancelled; the sandbox was killed");
      break;
    default:
      break;
  }
  // What the sandbox refused (system calls, processes, memory, disk, read-only paths, the
  // network), one line each; the program's own words are above them.
  language::RefusalContext refusals{
      .allow_host_hint = "Rerun with --allow-host HOST to let it reach one.",
      .program_output = static_cast<std::size_t>(result.step) + 1 >= plan.steps.size()};
  for (const auto& line : language::refusal_lines(result, refusals)) note(line);
  if (!result.isolation.root_reason.empty() &&
      result.isolation.root_reason.find('=') == std::string::npos) {
    note("the image runs from a flattened copy of its layers: " + result.isolation.root_reason +
         " (Linux 5.11+ can; PADDOCK_IMAGE_ROOT=flattened skips the attempt)");
  }
  // Without --json there is nowhere to put a figure or a collected file: say so rather than
  // leave a user wondering where the plot went.
  std::uint64_t figures = 0;
  for (const auto& artifact : result.artifacts) {
    if (artifact.mime_type.starts_with("image/")) ++figures;
  }
  std::uint64_t files = result.artifacts.size() - figures + result.artifacts_omitted_count();
  if (figures + files > 0) {
    std::string made = figures > 0 ? core::counted(figures, "figure", "figures") : "";
    if (files > 0) made += (made.empty() ? "" : " and ") + core::counted(files, "file", "files");
    note(made + (figures + files == 1 ? " was" : " were") +
         " made and not shown: run with --json to get them (base64, in the result's artifacts)");
  }
  for (const auto& limit : result.isolation.not_enforced) {
    // Noted only where asked for: rlimit mode holds memory per process, as --help says, and
    // a note on every run would teach users to skip the notes.
    if (limit == "cpus" && !shape.limits.cpus) continue;
    if (limit == "memory" && result.isolation.limits_mode == "rlimit") continue;
    note("--" + limit + " is not enforced here: " + result.isolation.limits_reason);
  }
}

core::Result<std::string> read_code(const LanguageRequest& language) {
  if (language.code) return *language.code;
  std::ostringstream text;
  if (*language.code_file == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(*language.code_file, std::ios::binary);
  if (!in) return core::system_error("cannot read code file " + *language.code_file);
  text << in.rdbuf();
  return text.str();
}

// What the flags set, as the spec builder's overrides of a language run: flags win over the
// policy, which wins over paddock's defaults.
language::SpecOverrides overrides_from_flags(const RunRequest& request) {
  const runtime::SandboxShape& shape = request.shape;
  const runtime::RunPlan& plan = request.plan;
  language::SpecOverrides overrides;
  overrides.limits = request.limit_flags;
  overrides.env = plan.env;
  // --env is the operator's: it reaches the installer too (a private index, a proxy).
  overrides.installer_env = plan.env;
  if (request.network_given) overrides.network = shape.network;
  overrides.allowed_private_ranges = shape.allowed_private_ranges;
  overrides.host_loopback_ports = shape.host_loopback_ports;
  overrides.previews = shape.previews;
  overrides.allowed_hosts = shape.allowed_hosts;
  overrides.cwd = plan.cwd;
  overrides.stdin_path = plan.stdin_path;
  overrides.binds = shape.binds;
  overrides.trust_bundle = shape.trust_bundle;
  overrides.seccomp_profile_path = shape.seccomp_profile_path;
  overrides.require_cgroups = shape.require_cgroups;
  overrides.collect_directories = plan.collect.directories;
  return overrides;
}

void print_json(const nlohmann::json& json) {
  core::write_all(STDOUT_FILENO,
                  json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// The gate every code call passes (app/code_gate.h): screening, with --screening over the
// policy's mode, and the audit line when --audit-log is given.
core::Result<app::CodeGate> open_gate(const RunRequest& request,
                                      const AuditOpener& open_audit_log) {
  app::AuditRecorder record;
  if (request.audit_log) {
    if (!open_audit_log) return core::invalid_input("this paddock cannot write an audit log");
    auto opened = open_audit_log(*request.audit_log, {});
    if (!opened) return opened.error();
    record = std::move(*opened);
  }
  std::optional<language::ScreeningMode> mode;
  if (request.screening_mode) mode = language::screening_mode_from_name(*request.screening_mode);
  return app::CodeGate(std::move(record), request.backend, mode);
}

// What the audit line says of the run: a language's code, else the command's words.
app::GatedCall gated_call(const RunRequest& request, const language::LanguagePolicy* policy,
                          const std::optional<std::string>& code) {
  app::GatedCall call{"run", std::nullopt, policy, code.value_or(""), {}};
  if (request.language) call.libraries = request.language->libraries;
  if (!code && !request.plan.steps.empty()) call.code = core::join(request.plan.steps.back(), " ");
  return call;
}

// Screens the code before anything runs. Findings go to stderr, one line each (with --json, the
// result carries them instead).
language::ScreeningVerdict screen_code(const RunRequest& request, const app::CodeGate& gate,
                                       const app::GatedCall& call) {
  language::ScreeningVerdict verdict = gate.screen(call);
  if (!request.json) {
    for (const auto& finding : verdict.findings) {
      note((verdict.blocked ? "screening: " : "screening warning: ") + language::describe(finding));
    }
    if (verdict.findings_omitted > 0) {
      note("screening: " +
           core::counted(verdict.findings_omitted, "more finding", "more findings"));
    }
  }
  return verdict;
}

int report_blocked(const RunRequest& request, const language::LanguagePolicy& policy,
                   const language::ScreeningVerdict& verdict) {
  if (request.json) {
    print_json(language::blocked_result(policy, verdict));
  } else {
    note("blocked by code screening (" + language::blocking_summary(verdict) +
         "); the sandbox did not run");
  }
  return language::kScreeningBlockedExitCode;
}

// A termination signal cancels the run (g_cancellation), and a reader that goes away does not
// kill us mid-cleanup.
void catch_termination() {
  struct sigaction action {};
  action.sa_handler = on_termination_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// The relay of our terminal's input to the program, when the request asks for one.
core::Status start_relay(const RunRequest& request, std::optional<StdinRelay>& relay) {
  if (!request.stdin_from_terminal) return {};
  auto started = StdinRelay::start(STDIN_FILENO);
  if (!started) return started.error();
  relay.emplace(std::move(*started));
  return {};
}

// Sets up the brokered secrets (--secret), when there are any: `secrets` gets the authority and
// the trust bundle the sandbox is given, `settings` the native backend's broker.
core::Status broker_secrets(RunRequest& request, const config::Environment& env,
                            const TerminatorMaker& make_terminator, CommandSecrets& secrets,
                            BackendSettings& settings) {
  if (request.secrets.empty()) return {};
  auto made = command_secrets("--secret", request.secrets, request.secret_in_body,
                              request.egress_ca_file, env, make_terminator);
  if (!made) return made.error();
  secrets = std::move(*made);
  request.shape.trust_bundle = secrets.trust_bundle;
  request.plan.env.insert(request.plan.env.end(), secrets.env.begin(), secrets.env.end());
  settings.native.broker = secrets.broker.broker;
  return {};
}

// The policy of a language run (--lang), with the flags laid over it, and its code.
core::Status load_language(const RunRequest& request, const config::Environment& env,
                           std::optional<language::LanguagePolicy>& policy,
                           std::optional<std::string>& code) {
  auto found = language::PolicyStore::load_one(
      language::policy_directories(user_policy_directory(env), request.language->policy_dir),
      request.language->language, env);
  if (!found) return found.error();
  policy = std::move(*found);
  // Over the policy, as the server lays it over every policy (mcp/policy_overrides.cc).
  if (request.language->install_network) {
    policy->install_network = *request.language->install_network;
  }
  auto read = read_code(*request.language);
  if (!read) return read.error();
  code = std::move(*read);
  return {};
}

// The run's shape and plan: a language's call (`policy` and its `code`), else the command.
core::Result<language::BuiltSpec> build_spec(const RunRequest& request,
                                             const language::LanguagePolicy* policy,
                                             std::optional<std::string>& code,
                                             const language::ImageSource& images, int stdin_fd) {
  if (policy != nullptr) {
    language::CodeCall call;
    call.code = std::move(*code);
    call.program_args = request.language->program_args;
    call.libraries = request.language->libraries;
    call.stdin_fd = stdin_fd;
    return language::build_language_spec(*policy, call, overrides_from_flags(request), images);
  }
  runtime::RunPlan plan = request.plan;
  if (stdin_fd >= 0) plan.stdin_fd = stdin_fd;
  return language::build_command_spec(request.shape, std::move(plan), images);
}

}  // namespace

int run_command(RunRequest& request, const TerminatorMaker& make_terminator,
                const AuditOpener& open_audit_log) {
  std::optional<language::LanguagePolicy> policy;
  std::optional<language::ScreeningVerdict> screening;
  std::optional<std::string> code;
  config::Environment env = config::process_environment();
  if (request.language) {
    auto loaded = load_language(request, env, policy, code);
    if (!loaded) return fail(config::worded(loaded.error(), config::kRun));
  }
  auto gate = open_gate(request, open_audit_log);
  if (!gate) return fail(config::worded(gate.error(), config::kRun));
  const app::GatedCall gated = gated_call(request, policy ? &*policy : nullptr, code);
  if (policy) {
    screening = screen_code(request, *gate, gated);
    if (screening->blocked) return report_blocked(request, *policy, *screening);
  }

  BackendSettings settings = backend_settings(env, request.kube, true);
  // Brokered secrets: the authority and the sandbox's trust bundle live as long as the run.
  CommandSecrets broker;
  if (auto brokered = broker_secrets(request, env, make_terminator, broker, settings); !brokered) {
    return fail(config::worded(brokered.error(), config::kRun));
  }
  auto backend = available_backends().create(request.backend, settings);
  if (!backend) return fail(config::worded(backend.error(), config::kRun));

  CliObserver observer(!request.json);
  g_cancellation = &observer.token();
  catch_termination();
  std::optional<StdinRelay> relay;
  if (auto started = start_relay(request, relay); !started)
    return fail(config::worded(started.error(), config::kRun));
  int stdin_fd = relay ? relay->fd() : -1;

  // --image, else the language policy's image, else the host's /usr.
  language::ImageSource images{backend->get(), request.image, request.image_root, {}};
  auto built = build_spec(request, policy ? &*policy : nullptr, code, images, stdin_fd);
  if (!built) {
    if (relay) relay->stop();
    gate->ran(gated, {});
    return fail(config::worded(built.error(), config::kRun));
  }
  auto result =
      request.publish.empty()
          ? (*backend)->run(built->shape, built->plan, observer)
          : run_published(**backend, built->shape, built->plan, request.publish, observer,
                          [](const std::string& line) { std::cerr << line << std::endl; });
  if (relay) relay->stop();
  g_cancellation = nullptr;
  gate->ran(gated,
            {result ? &*result : nullptr, runtime::limits_of(built->shape.limits, built->plan)});
  if (!result) return fail(config::worded(result.error(), config::kRun));
  if (request.json) {
    print_json(policy ? language::to_json(language::label_result(
                            *policy, *result, screening, !request.language->libraries.empty()))
                      : runtime::to_json(*result));
  } else {
    report_to_stderr(*result, built->shape, built->plan);
  }
  if (result->outcome == runtime::Outcome::kCancelled && g_received_signal != 0) {
    return 128 + g_received_signal;
  }
  return runtime::cli_exit_status(*result);
}

}  // namespace paddock::cli
