#include "code_runner.h"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>

#include "core/unique_fd.h"
#include "image_root.h"
#include "session_files.h"

namespace paddock::mcp {
namespace {

// Images travel base64 in one message of at most 8 MiB, next to the output.
constexpr std::uint64_t kArtifactBudget = 4u << 20;
constexpr std::uint32_t kMaxArtifacts = 16;
constexpr const char* kPlotsDirectory = ".paddock/plots";

Result<UniqueFd> stdin_memfd(const std::string& text) {
  UniqueFd fd(memfd_create("paddock-stdin", MFD_CLOEXEC));
  if (!fd.valid()) return system_error("creating the program's stdin");
  for (std::size_t done = 0; done < text.size();) {
    ssize_t wrote = write(fd.get(), text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return system_error("writing the program's stdin");
    done += static_cast<std::size_t>(wrote);
  }
  lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

// The timeout that applies: the caller's, else the policy's, never over the server's cap.
double effective_timeout(const CodeRequest& request, double policy_seconds, double cap,
                         bool* capped) {
  double wanted = request.timeout_seconds.value_or(policy_seconds);
  *capped = wanted > cap;
  return std::min(wanted, cap);
}

// The policy's spec on the policy's root file system (the host's /usr, or its image, pulled on
// first use), with the variables the server passes through.
Result<SandboxSpec> policy_spec(ServerState& state, const LanguagePolicy& policy,
                                const std::string& code, const std::vector<std::string>& libraries,
                                const PullProgress& progress) {
  auto spec = language_spec(policy, code, {}, libraries);
  if (!spec) return spec.error();
  if (auto image = image_of_rootfs(policy.rootfs)) {
    if (auto ready = state.images.ensure(*image, progress); !ready) {
      return ready.error().context("language " + policy.name);
    }
    if (auto applied = state.backend->use_image(*image, std::nullopt, *spec, true); !applied) {
      return applied.error().context("language " + policy.name);
    }
  }
  spec->env.insert(spec->env.end(), state.options.pass_through_env.begin(),
                   state.options.pass_through_env.end());
  spec->allowed_private_ranges = state.options.allowed_private_ranges;
  spec->host_loopback_ports = state.options.host_loopback_ports;
  return spec;
}

// What the client sees of a run: passed-through values masked wherever paddock reports text.
void mask_secrets(const SecretMask& secrets, RunResult& result) {
  result.stdout_data.data =
      secrets.apply(std::move(result.stdout_data.data), result.stdout_data.truncated);
  result.stderr_data.data =
      secrets.apply(std::move(result.stderr_data.data), result.stderr_data.truncated);
  result.exec_error = secrets.apply(std::move(result.exec_error));
  for (auto& artifact : result.artifacts) {
    artifact.path = secrets.apply(std::move(artifact.path));
    auto shown = client_view(secrets, std::move(artifact.data), false);
    if (shown) {
      artifact.data = std::move(*shown);
    } else {
      artifact.data.clear();
      artifact.withheld = kWithheld;
    }
  }
}

Result<SandboxSpec> code_spec(ServerState& state, const LanguagePolicy& policy,
                              const CodeRequest& request, RunObserver& observer) {
  auto progress = [&observer](const std::string& line) {
    observer.on_output(StreamId::kStderr, line + "\n");
  };
  auto spec = policy_spec(state, policy, request.code, request.libraries, progress);
  if (!spec) return spec.error();
  spec->collect.max_files = kMaxArtifacts;
  spec->collect.max_bytes = kArtifactBudget;
  return spec;
}

}  // namespace

std::string session_plot_directory(int run) {
  return std::string(kPlotsDirectory) + "/" + std::to_string(run);
}

Result<SandboxSpec> session_spec(ServerState& state, const LanguagePolicy& policy,
                                 const PullProgress& progress) {
  auto spec = policy_spec(state, policy, "", {}, progress);
  if (!spec) return spec.error();
  if (spec->network == NetworkMode::kHost || policy.install_network == "host") {
    return invalid_input("language '" + policy.name +
                         "' needs the host's network, which sessions do not offer");
  }
  spec->argv.clear();
  spec->prelude.clear();
  spec->files.erase(spec->files.begin());  // the code comes with each run
  return spec;
}

Result<CodeRun> run_fresh(ServerState& state, const LanguagePolicy& policy,
                          const CodeRequest& request, RunObserver& observer) {
  auto spec = code_spec(state, policy, request, observer);
  if (!spec) return spec.error();
  CodeRun run;
  run.timeout_seconds = effective_timeout(request, spec->limits.wall_seconds,
                                          state.options.max_timeout_seconds, &run.timeout_capped);
  spec->limits.wall_seconds = run.timeout_seconds;
  run.limits = spec->limits;
  spec->files_after_install = request.files;
  UniqueFd input;
  if (request.stdin_text) {
    auto fd = stdin_memfd(*request.stdin_text);
    if (!fd) return fd.error();
    input = std::move(*fd);
    spec->stdin_fd = input.get();
  }
  auto result = state.backend->run(*spec, observer);
  if (!result) return result.error();
  mask_secrets(state.secrets, *result);
  run.result = label_result(policy, std::move(*result), std::nullopt, !request.libraries.empty());
  return run;
}

Result<CodeRun> run_in_session(SessionEntry& session, ServerState& state,
                               const CodeRequest& request, RunObserver& observer) {
  const LanguagePolicy& policy = *session.policy;
  auto spec = code_spec(state, policy, request, observer);
  if (!spec) return spec.error();
  CodeRun run;
  run.timeout_seconds = effective_timeout(request, spec->limits.wall_seconds,
                                          state.options.max_timeout_seconds, &run.timeout_capped);
  run.limits = spec->limits;
  run.limits.wall_seconds = run.timeout_seconds;
  std::lock_guard lock(session.run_mutex);
  const SandboxFile& code = spec->files.front();
  if (auto wrote = session.session->write_file(code.path, code.content); !wrote) {
    return wrote.error();
  }
  // Each run's figures in a directory of their own, so a run returns only what it drew.
  std::vector<std::string> env;
  OutputCollection collect;
  collect.max_files = kMaxArtifacts;
  collect.max_bytes = kArtifactBudget;
  int run_number = ++session.runs;
  if (policy.env.count("PADDOCK_PLOTS_DIR") != 0) {
    std::string directory = session_plot_directory(run_number);
    env.push_back("PADDOCK_PLOTS_DIR=/work/" + directory);
    collect.directories.push_back(directory);
  }
  UniqueFd input;
  if (request.stdin_text) {
    auto fd = stdin_memfd(*request.stdin_text);
    if (!fd) return fd.error();
    input = std::move(*fd);
  }

  std::vector<std::vector<std::string>> steps = spec->prelude;
  steps.push_back(spec->argv);
  auto started = std::chrono::steady_clock::now();
  std::string earlier_output;  // what the installer and compiler said, shown before the run's
  RunResult last;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    bool program = i + 1 == steps.size();
    // The caller's files come after the installer, which must never see them.
    if (i == spec->networked_prelude) {
      for (const auto& file : request.files) {
        if (auto wrote = session.session->write_file(file.path, file.content); !wrote) {
          return wrote.error();
        }
      }
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ExecRequest exec;
    exec.argv = steps[i];
    exec.env = env;
    exec.stdin_fd = program ? input.get() : -1;
    exec.wall_seconds = std::max(0.001, run.timeout_seconds - elapsed);
    exec.output_bytes = spec->limits.output_bytes;
    exec.stdout_to_stderr = !program;
    exec.network = i < spec->networked_prelude;
    if (program) exec.collect = collect;
    auto result = session.session->exec(exec, observer);
    if (!result) return result.error();
    last = std::move(*result);
    last.step = static_cast<int>(i);
    bool succeeded = last.outcome == Outcome::kExited && last.exit_code == 0;
    if (program || !succeeded) break;
    earlier_output += last.stderr_data.data;
  }
  last.stderr_data.data = earlier_output + last.stderr_data.data;
  mask_secrets(state.secrets, last);
  last.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - started)
                         .count();
  run.result = label_result(policy, std::move(last), std::nullopt, !request.libraries.empty());
  return run;
}

Result<RunResult> install_in_session(SessionEntry& session, ServerState& state,
                                     const std::vector<std::string>& libraries,
                                     RunObserver& observer, const std::string& tool) {
  auto spec = language_spec(*session.policy, "", {}, libraries);
  if (!spec) return spec.error();
  if (spec->prelude.empty()) return invalid_input("no libraries given");
  std::lock_guard lock(session.run_mutex);
  ExecRequest exec;
  exec.argv = spec->prelude.front();
  exec.wall_seconds = std::min(spec->limits.wall_seconds * 4, state.options.max_timeout_seconds);
  exec.output_bytes = spec->limits.output_bytes;
  exec.stdout_to_stderr = true;
  exec.network = spec->networked_prelude > 0;
  auto result = session.session->exec(exec, observer);
  if (result) mask_secrets(state.secrets, *result);
  AuditRecord record;
  record.tool = tool;
  record.session = session.id;
  record.language = session.policy->name;
  record.libraries = libraries;
  record.backend = state.backend->name();
  record.limits = spec->limits;
  record.limits.wall_seconds = exec.wall_seconds;
  record.outcome = result ? to_string(result->outcome) : "error";
  if (result && result->outcome == Outcome::kExited) record.exit_code = result->exit_code;
  if (result) record.duration_ms = result->duration_ms;
  state.record(record);
  return result;
}

std::optional<std::string> install_failure(const Result<RunResult>& installed) {
  if (!installed) return installed.error().message;
  if (installed->outcome == Outcome::kExited && installed->exit_code == 0) return std::nullopt;
  return installed->stderr_data.data.substr(0, 8192) + "\ninstaller ended: " +
         (installed->timed_out() ? std::string("timed out")
                                 : "exit code " + std::to_string(installed->exit_code));
}

}  // namespace paddock::mcp
