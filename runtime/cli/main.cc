// `paddock`: a thin command line over the runtime library.

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "backend_registry.h"
#include "cli/command_line.h"
#include "native/host_probe.h"

namespace {

constexpr int kPaddockFailure = 125;

const paddock::CancellationToken* g_cancellation = nullptr;
volatile std::sig_atomic_t g_received_signal = 0;

void on_termination_signal(int sig) {
  g_received_signal = sig;
  if (g_cancellation != nullptr) g_cancellation->cancel();
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t written = write(fd, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // our reader went away; keep supervising regardless
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

// Streams the program's output to ours as it arrives, unless a JSON result was asked for.
class CliObserver final : public paddock::RunObserver {
 public:
  explicit CliObserver(bool stream) : stream_(stream) {}
  void on_output(paddock::StreamId stream, std::string_view chunk) override {
    if (!stream_) return;
    write_all(stream == paddock::StreamId::kStdout ? STDOUT_FILENO : STDERR_FILENO, chunk);
  }
  [[nodiscard]] const paddock::CancellationToken* cancellation() const override { return &token_; }
  [[nodiscard]] const paddock::CancellationToken& token() const { return token_; }

 private:
  bool stream_;
  paddock::CancellationToken token_;
};

int fail(const std::string& message) {
  std::string line = "paddock: " + message + "\n";
  write_all(STDERR_FILENO, line);
  return kPaddockFailure;
}

void report_to_stderr(const paddock::RunResult& result, const paddock::SandboxSpec& spec) {
  auto note = [](const std::string& text) { write_all(STDERR_FILENO, "paddock: " + text + "\n"); };
  if (result.stdout_data.truncated) {
    note("stdout truncated to " + std::to_string(spec.limits.output_bytes) + " of " +
         std::to_string(result.stdout_data.total_bytes) + " bytes (--output-limit)");
  }
  if (result.stderr_data.truncated) {
    note("stderr truncated to " + std::to_string(spec.limits.output_bytes) + " of " +
         std::to_string(result.stderr_data.total_bytes) + " bytes (--output-limit)");
  }
  switch (result.outcome) {
    case paddock::Outcome::kTimedOut:
      note("timed out after " + std::to_string(result.duration_ms) +
           " ms (--timeout); the sandbox was killed");
      break;
    case paddock::Outcome::kExecFailed:
      note(result.exec_error);
      break;
    case paddock::Outcome::kCancelled:
      note("cancelled; the sandbox was killed");
      break;
    default:
      break;
  }
  if (result.oom_killed) {
    note("the sandbox ran out of memory (--memory " + std::to_string(spec.limits.memory_bytes) +
         " bytes) and the kernel killed a process");
  }
  for (const auto& limit : result.isolation.not_enforced) {
    note("--" + limit + " is not enforced here: " + result.isolation.limits_reason);
  }
}

int run(paddock::cli::RunRequest& request) {
  CliObserver observer(!request.json);
  g_cancellation = &observer.token();
  struct sigaction action {};
  action.sa_handler = on_termination_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (request.stdin_from_terminal) request.spec.stdin_fd = STDIN_FILENO;

  auto backend = paddock::builtin_backends().create(request.backend);
  if (!backend) return fail(backend.error().message);
  auto result = (*backend)->run(request.spec, observer);
  g_cancellation = nullptr;
  if (!result) return fail(result.error().message);
  if (request.json) {
    std::string text =
        paddock::to_json(*result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    write_all(STDOUT_FILENO, text + "\n");
  } else {
    report_to_stderr(*result, request.spec);
  }
  if (result->outcome == paddock::Outcome::kCancelled && g_received_signal != 0) {
    return 128 + g_received_signal;
  }
  return paddock::cli_exit_status(*result);
}

int doctor(const paddock::cli::DoctorRequest& request) {
  paddock::HostReport report = paddock::probe_host();
  if (request.json) {
    write_all(STDOUT_FILENO, paddock::to_json(report).dump(2) + "\n");
  } else {
    write_all(STDOUT_FILENO, paddock::to_text(report));
  }
  bool ready =
      report.user_namespaces.available && report.seccomp.available && report.pidfd.available;
  return ready ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  auto request = paddock::cli::parse_command_line(argc, argv);
  if (!request) return fail(request.error().message);
  if (auto* info = std::get_if<paddock::cli::InfoRequest>(&*request)) {
    write_all(STDOUT_FILENO, info->text);
    return 0;
  }
  if (auto* doctor_request = std::get_if<paddock::cli::DoctorRequest>(&*request)) {
    return doctor(*doctor_request);
  }
  return run(std::get<paddock::cli::RunRequest>(*request));
}
