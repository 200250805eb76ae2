#include "app/code_runner.h"
#include "app/consent_scope.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <tuple>

#include "app/client_view.h"
#include "core/text.h"
#include "core/unique_fd.h"
#include "language/install_diagnosis.h"
#include "language/spec_builder.h"
#include "language/warm_spec.h"
#include "runtime/output_capture.h"
#include "runtime/step_runner.h"
#include "runtime/warm_run.h"

namespace paddock::app {
namespace {

constexpr const char* kOutputDirectory = ".paddock/output";
// What a failed install's message keeps of the installer's output: the line that matters leads.
constexpr std::uint64_t kInstallerOutputShown = 8u << 10;

// The libraries that need installing, and those the policy says are there already.
std::pair<std::vector<std::string>, std::vector<std::string>> split_preinstalled(
    const language::LanguagePolicy& policy, const std::vector<std::string>& libraries) {
  std::vector<std::string> wanted, there;
  for (const auto& library : libraries) {
    (language::is_preinstalled(policy, library) ? there : wanted).push_back(library);
  }
  return {wanted, there};
}

// A session's streams that the result cuts are kept whole in its work directory.
void keep_whole_streams(runtime::Session& sandbox, int run_number, std::uint64_t shown_bytes,
                        CodeRun& run) {
  const runtime::RunResult& result = run.result.run;
  for (auto [stream, output, file] :
       {std::tuple{"stdout", &result.stdout_data, &run.stdout_file},
        std::tuple{"stderr", &result.stderr_data, &run.stderr_file}}) {
    if (output->total_bytes <= shown_bytes) continue;
    std::string path = session_output_file(run_number, stream);
    if (auto wrote = sandbox.write_file(path, shown_text(*output)); !wrote) {
      run.output_file_error = wrote.error().message;
      continue;
    }
    *file = "/work/" + path;
  }
}

core::Result<core::UniqueFd> stdin_memfd(const std::string& text) {
  core::UniqueFd fd(memfd_create("paddock-stdin", MFD_CLOEXEC));
  if (!fd.valid()) return core::system_error("creating the program's stdin");
  for (std::size_t done = 0; done < text.size();) {
    ssize_t wrote = write(fd.get(), text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return core::system_error("writing the program's stdin");
    done += static_cast<std::size_t>(wrote);
  }
  lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

runtime::PullProgress progress_to(runtime::RunObserver& observer) {
  return [&observer](const std::string& line) {
    observer.on_output(runtime::StreamId::kStderr, line + "\n");
  };
}

// A stream with passed-through values masked, its start and its end each when it was cut between
// them, and its counts following the text: a masked value shortens the stream, and is not a part
// of it that was left out.
void mask_stream(const SecretMask& secrets, runtime::CapturedOutput& output) {
  std::uint64_t before = output.data.size();
  if (output.truncated) {
    auto head = static_cast<std::size_t>(std::min<std::uint64_t>(output.head_bytes, before));
    std::string start = secrets.apply(output.data.substr(0, head), true);
    std::string end = secrets.apply(output.data.substr(head), true);
    output.head_bytes = start.size();
    output.data = std::move(start) + end;
  } else {
    output.data = secrets.apply(std::move(output.data));
  }
  output.total_bytes = output.total_bytes + output.data.size() - before;
}

// What of a run must be masked before it reaches the client: text that is cut later or was cut
// already (a cut can split a value, and then the mask every message passes on its way out no longer
// sees it), and artifacts, whose bytes are screened before they are encoded. The rest is masked on
// its way out (secret_mask.h).
void mask_secrets(const SecretMask& secrets, runtime::RunResult& result) {
  mask_stream(secrets, result.stdout_data);
  mask_stream(secrets, result.stderr_data);
  if (result.cell) {
    runtime::CellReport& cell = *result.cell;
    cell.result_text = secrets.apply(std::move(cell.result_text), cell.result_truncated);
    if (cell.error) {
      cell.error->name = secrets.apply(std::move(cell.error->name));
      cell.error->value = secrets.apply(std::move(cell.error->value));
      for (auto& line : cell.error->traceback) line = secrets.apply(std::move(line));
    }
  }
  for (auto& artifact : result.artifacts) {
    auto shown = client_view(secrets, std::move(artifact.data), false);
    if (shown) {
      artifact.data = std::move(*shown);
    } else {
      artifact.data.clear();
      artifact.withheld = kWithheld;
    }
  }
}

}  // namespace

language::ImageSource CodeRunner::images(const runtime::PullProgress& progress) const {
  language::ImageSource source;
  source.backend = &backend_;
  source.ensure = [this, progress](const std::string& image) {
    return images_.ensure(image, progress);
  };
  return source;
}

// What a language's warm interpreters preload: the server's list (--preload), else the policy's.
std::vector<std::string> CodeRunner::preload_of(const language::LanguagePolicy& policy) const {
  const auto& chosen = options_.preload;
  auto found = chosen.find(policy.name);
  return found != chosen.end() ? found->second : policy.warm.preload;
}

// The warm interpreter a call of `code` takes (none for a language without one): one that
// preloaded the data libraries when the code imports one of them, else one that preloaded
// nothing. Built from a call that brings nothing, with none of the server's pass-through values
// (a call's, never a waiting sandbox's). `pool_key` is where the pool keeps its sandboxes.
std::optional<runtime::WarmInterpreter> CodeRunner::interpreter_for(
    const language::LanguagePolicy& policy, const runtime::SandboxShape& shape,
    const std::string& code, std::string& pool_key) const {
  pool_key = policy.name;
  if (!options_.warm_interpreters || policy.warm.loader.empty()) return std::nullopt;
  std::vector<std::string> preload = preload_of(policy);
  if (language::wants_preload(policy, preload, code)) {
    pool_key += " (preloaded)";  // after the plain ones: those the pool fills first
  } else {
    preload.clear();
  }
  language::SpecOverrides overrides = this->overrides();
  overrides.env.clear();
  auto empty_call =
      language::build_language_spec(policy, language::CodeCall{}, overrides, images({}));
  if (!empty_call) return std::nullopt;
  return language::warm_interpreter(policy, shape, empty_call->plan, preload);
}

// In a warm sandbox of the call's shape when one waits, else in a new one.
core::Result<runtime::RunResult> CodeRunner::run_warm_or_cold(
    const language::LanguagePolicy& policy, const std::string& code,
    const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
    runtime::RunObserver& observer, bool& warm, std::shared_ptr<void>& until_answered) const {
  if (runtime::runs_warm(shape, plan)) {
    // What a cold run would refuse before starting, a warm one refuses too.
    if (auto valid = backend_.check(shape, plan); !valid) return valid.error();
    // From the take until the answer is ready, the pool opens none: setting up the next would take
    // a core from this call, and its answer would wait behind it.
    until_answered = std::make_shared<WarmPool::CallInFlight>(warm_);
    // Goes back to the pool (to be closed) however the call ends.
    struct Taken {
      WarmPool& pool;
      std::unique_ptr<runtime::Session> sandbox;
      ~Taken() { pool.retire(std::move(sandbox)); }
    } taken{warm_, nullptr};
    std::string pool_key;
    auto interpreter = interpreter_for(policy, shape, code, pool_key);
    taken.sandbox = warm_.take(pool_key, shape, interpreter, plan);
    if (taken.sandbox && !taken.sandbox->ended()) {
      taken.sandbox->set_consent(plan.consent);  // it is retired after this call alone
      auto result = runtime::run_warm(*taken.sandbox, plan, observer);
      // One killed from outside as it was taken ended before anything of the call ran (its init
      // never said the command started): the call runs cold instead.
      if (result || result.error().kind != core::ErrorKind::kSandboxGone) {
        warm = true;
        return result;
      }
    }
  }
  return backend_.run(shape, plan, observer);
}

void CodeRunner::prepare_warm_sandboxes(const language::LanguagePolicy& policy) const {
  language::ImageSource present_only;
  present_only.backend = &backend_;
  auto built =
      language::build_language_spec(policy, language::CodeCall{}, overrides(), present_only);
  if (!built || !runtime::runs_warm(built->shape, built->plan)) return;
  // The interpreter that preloaded nothing: what a first call takes unless it imports a data
  // library. One that preloaded them costs a second or more of CPU and a few hundred MiB to keep,
  // so it is made after the first call that wanted one, not for every server that starts.
  std::string pool_key;
  auto interpreter = interpreter_for(policy, built->shape, "", pool_key);
  warm_.prepare(pool_key, built->shape, interpreter);
}

std::string session_output_file(int run, const std::string& stream) {
  return std::string(kOutputDirectory) + "/" + std::to_string(run) + "/" + stream;
}

core::Result<language::BuiltSpec> CodeRunner::session_spec(
    const language::LanguagePolicy& policy, const runtime::PullProgress& progress,
    const std::vector<runtime::BindMount>& binds) const {
  language::SpecOverrides overrides = this->overrides();
  overrides.binds.insert(overrides.binds.end(), binds.begin(), binds.end());
  // A session's quotas: its tmpfs's size and inodes, so a write past them fails inside.
  if (options_.session_disk) overrides.limits.work_bytes = options_.session_disk;
  overrides.limits.work_files = options_.session_files;
  return language::build_session_spec(policy, overrides, images(progress));
}

core::Result<language::BuiltSpec> CodeRunner::toolchain_version_spec(
    const language::LanguagePolicy& policy) const {
  language::ImageSource present_only;
  present_only.backend = &backend_;
  return language::build_toolchain_spec(policy, policy.version_command, 20, overrides(),
                                        present_only);
}

core::Result<CodeRun> CodeRunner::run_fresh(
    const language::LanguagePolicy& policy, const CodeRequest& request,
    runtime::RunObserver& observer, std::shared_ptr<void>& until_answered,
    std::shared_ptr<net::egress::HostConsent> consent) const {
  core::UniqueFd input;
  if (request.stdin_text) {
    auto fd = stdin_memfd(*request.stdin_text);
    if (!fd) return fd.error();
    input = std::move(*fd);
  }
  auto [libraries, preinstalled] = split_preinstalled(policy, request.libraries);
  language::CodeCall call{request.code, {}, libraries, request.files, request.timeout_seconds,
                          input.get()};
  auto built =
      language::build_language_spec(policy, call, overrides(), images(progress_to(observer)));
  if (!built) return built.error();
  CodeRun run;
  run.timeout_seconds = built->plan.wall_seconds;
  run.timeout_capped = built->timeout_capped;
  run.limits = runtime::limits_of(built->shape.limits, built->plan);
  run.preinstalled = std::move(preinstalled);
  built->plan.consent = std::move(consent);
  auto result = run_warm_or_cold(policy, request.code, built->shape, built->plan, observer,
                                 run.warm, until_answered);
  if (!result) return result.error();
  mask_secrets(secrets_, *result);
  run.result = language::label_result(policy, std::move(*result), std::nullopt, !libraries.empty());
  return run;
}

// A call in a live session: the code is a cell of the session's interpreter. Libraries are
// installed first by the policy's installer, as a separate networked command while the
// interpreter is stopped, then made importable in it (install_in_session).
core::Result<CodeRun> CodeRunner::run_live(
    SessionEntry& session, const CodeRequest& request, runtime::RunObserver& observer,
    const std::shared_ptr<net::egress::HostConsent>& consent) const {
  const language::LanguagePolicy& policy = session.policy();
  if (request.stdin_text) {
    return core::invalid_input(
        "stdin is not available to a live session's interpreter; write the input to a file in "
        "/work (files) and read it from there");
  }
  CodeRun run;
  language::BuiltCell cell_limits =
      language::build_live_cell(policy, request.timeout_seconds, session.limits(), overrides());
  run.limits = cell_limits.limits;
  run.timeout_capped = cell_limits.timeout_capped;
  run.timeout_seconds = run.limits.wall_seconds;
  auto [libraries, preinstalled] = split_preinstalled(policy, request.libraries);
  run.preinstalled = std::move(preinstalled);
  if (!libraries.empty()) {
    auto installed = install_in_session(session, libraries, observer, "execute_code", consent);
    if (!installed) return installed.error();
    if (installed->outcome != runtime::Outcome::kExited || installed->exit_code != 0) {
      run.result = language::label_result(policy, std::move(*installed), std::nullopt, true);
      return run;
    }
  }
  auto locked = session.lock_run();
  ConsentWhileRunning asking(session.session(), consent);
  for (const auto& file : request.files) {
    if (auto wrote = session.session().write_file(file.path, file.content); !wrote) {
      return wrote.error();
    }
  }
  runtime::CellRequest cell{request.code, run.timeout_seconds, kSessionStreamBytes,
                            options_.max_artifacts, options_.max_artifact_bytes};
  int run_number = locked.count_run();
  (void)session.session().take_network_record();  // what came before the cell is not its own
  auto result = locked.kernel()->execute(cell, observer);
  if (!result) return result.error();
  result->network = session.session().take_network_record();
  // A reopened session's first cell says once that the earlier interpreter is gone.
  if (result->cell && result->cell->state_lost.empty()) {
    if (std::string lost = locked.take_state_lost(); !lost.empty()) {
      result->cell->state_lost = std::move(lost);
      result->cell->lost_before_cell = true;
    }
  }
  result->backend = backend_.name();
  mask_secrets(secrets_, *result);
  run.result = language::label_result(policy, std::move(*result), std::nullopt, false);
  keep_whole_streams(session.session(), run_number, options_.result_stream_bytes, run);
  return run;
}

core::Result<CodeRun> CodeRunner::run_in_session(
    SessionEntry& session, const CodeRequest& request, runtime::RunObserver& observer,
    const std::shared_ptr<net::egress::HostConsent>& consent) const {
  bool live;
  {
    // create_session starts the interpreter under this lock, after the session is listed.
    auto locked = session.lock_run();
    live = locked.kernel() != nullptr;
  }
  if (live) return run_live(session, request, observer, consent);
  const language::LanguagePolicy& policy = session.policy();
  auto [libraries, preinstalled] = split_preinstalled(policy, request.libraries);
  core::UniqueFd input;
  if (request.stdin_text) {
    auto fd = stdin_memfd(*request.stdin_text);
    if (!fd) return fd.error();
    input = std::move(*fd);
  }
  auto locked = session.lock_run();
  ConsentWhileRunning asking(session.session(), consent);
  int run_number = locked.next_run();
  language::CodeCall call{request.code, {}, libraries, request.files, request.timeout_seconds,
                          input.get()};
  // Kept for the session's files: the result itself carries only result_stream_bytes of each.
  auto built = language::build_session_call(policy, call, overrides(),
                                            language::SessionCall{run_number, kSessionStreamBytes});
  if (!built) return built.error();
  locked.count_run();
  CodeRun run;
  run.preinstalled = std::move(preinstalled);
  run.limits = built->limits;
  run.timeout_capped = built->timeout_capped;
  run.timeout_seconds = built->plan.wall_seconds;
  runtime::Session& sandbox = session.session();
  runtime::StepSandbox steps_in_session;
  steps_in_session.exec =
      [&sandbox](const runtime::ExecRequest& exec, const std::vector<runtime::SandboxFile>& files,
                 runtime::RunObserver& watching) -> core::Result<runtime::RunResult> {
    for (const auto& file : files) {
      if (auto wrote = sandbox.write_file(file.path, file.content); !wrote) return wrote.error();
    }
    return sandbox.exec(exec, watching);
  };
  steps_in_session.write_file = [&sandbox](const runtime::SandboxFile& file) {
    return sandbox.write_file(file.path, file.content);
  };
  steps_in_session.stdin_fd = built->plan.stdin_fd;
  auto result = runtime::run_steps(built->plan, steps_in_session, observer);
  if (!result) return result.error();
  mask_secrets(secrets_, *result);
  run.result = language::label_result(policy, std::move(*result), std::nullopt, !libraries.empty());
  keep_whole_streams(sandbox, run_number, options_.result_stream_bytes, run);
  return run;
}

core::Result<runtime::RunResult> CodeRunner::install_in_session(
    SessionEntry& session, const std::vector<std::string>& libraries,
    runtime::RunObserver& observer, const std::string& tool,
    const std::shared_ptr<net::egress::HostConsent>& consent) const {
  auto [wanted, preinstalled] = split_preinstalled(session.policy(), libraries);
  if (wanted.empty() && !preinstalled.empty()) {
    runtime::RunResult nothing;
    nothing.backend = backend_.name();
    nothing.stderr_data.data =
        "already there (preinstalled), nothing installed: " + core::join(preinstalled, ", ") + "\n";
    return nothing;
  }
  auto built = language::build_session_install(session.policy(), wanted, overrides());
  if (!built) return built.error();
  const runtime::RunPlan& plan = built->plan;
  auto lock = session.lock_run();
  ConsentWhileRunning asking(session.session(), consent);
  runtime::ExecRequest exec;
  exec.argv = plan.steps.front();
  exec.wall_seconds = plan.wall_seconds;
  exec.output_bytes = plan.output_bytes;
  exec.stdout_to_stderr = true;
  exec.network = plan.networked_steps > 0;
  exec.allowed_hosts = plan.installer_allowed_hosts;
  auto result = session.session().exec(exec, observer);
  if (result) mask_secrets(secrets_, *result);
  // A live interpreter sees the new libraries without a restart.
  if (result && lock.kernel() && result->outcome == runtime::Outcome::kExited &&
      result->exit_code == 0) {
    if (auto refreshed = lock.kernel()->refresh_after_install(); !refreshed) {
      result->stderr_data.data += "the live interpreter may need restart_session to import them: " +
                                  refreshed.error().message + "\n";
    }
  }
  lock.unlock();
  AuditRecord record;
  record.tool = tool;
  record.session = session.id();
  record.language = session.policy().name;
  record.libraries = libraries;
  record.backend = backend_.name();
  record.limits = built->limits;
  record.outcome = result ? runtime::to_string(result->outcome) : "error";
  if (result && result->outcome == runtime::Outcome::kExited) record.exit_code = result->exit_code;
  if (result) record.duration_ms = result->duration_ms;
  if (result) record.network = result->network;
  audit_.record(record);
  return result;
}

std::optional<std::string> install_failure(const core::Result<runtime::RunResult>& installed) {
  if (!installed) return installed.error().message;
  if (installed->outcome == runtime::Outcome::kExited && installed->exit_code == 0)
    return std::nullopt;
  std::string ending = installed->timed_out() ? std::string("timed out")
                                              : "exit code " + std::to_string(installed->exit_code);
  std::string lead = language::install_diagnosis(installed->stderr_data.data, installed->network)
                         .value_or("the installer failed");
  return lead + " (" + ending + "); the installer said:\n" +
         runtime::shown_text(runtime::shortened(installed->stderr_data, kInstallerOutputShown));
}

}  // namespace paddock::app
