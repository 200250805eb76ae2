#include "engine/engine_session.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "engine/container_config.h"
#include "engine/engine_stream.h"
#include "engine/session_scripts.h"
#include "engine/tar_reader.h"
#include "native/artifacts.h"

namespace paddock::engine {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

// Bytes of a file written per exec: base64 of it must fit one argument (128 KiB).
constexpr std::size_t kWriteChunk = 64u << 10;
constexpr const char* kStdinFile = ".paddock-stdin";  // in /tmp

void keep(CapturedOutput& output, std::string_view chunk, std::uint64_t cap) {
  output.total_bytes += chunk.size();
  std::size_t room =
      output.data.size() < cap ? static_cast<std::size_t>(cap - output.data.size()) : 0;
  if (chunk.size() > room) output.truncated = true;
  output.data.append(chunk.substr(0, room));
}

Result<std::string> read_fd(int fd, std::size_t max_bytes) {
  std::string data;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got == 0) return data;
    if (got < 0) return system_error("reading the program's stdin");
    data.append(buffer, static_cast<std::size_t>(got));
    if (data.size() > max_bytes) return invalid_input("stdin is larger than the sandbox's /tmp");
  }
}

std::string engine_error(const std::string& what, const Error& error) {
  return what + ": " + error.message;
}

}  // namespace

Result<std::unique_ptr<EngineSession>> EngineSession::open(const Flavour& flavour,
                                                           const SandboxSpec& spec) {
  auto profile = seccomp_profile_text(spec);
  if (!profile) return profile.error();
  if (spec.image.empty()) {
    return invalid_input("the " + flavour.name +
                         " backend needs an image: set the policy's rootfs to \"image:REF\" or "
                         "pass --image REF");
  }
  ContainerOptions options{spec.image, *profile, "", flavour.resource_limits,
                           flavour.podman_options};
  if (flavour.podman_options) {
    auto file = seccomp_profile_file(*profile);
    if (!file) return file.error();
    options.seccomp_file = *file;
  }
  Client client(flavour.endpoint);
  json config = container_config(spec, options);
  auto created = client.request("POST", "/containers/create", config.dump());
  if (!created) {
    return Error{created.error().code,
                 engine_error("creating a " + flavour.name + " container from " + spec.image,
                              created.error())};
  }
  std::string id = json::parse(created->body, nullptr, false).value("Id", "");
  if (id.empty()) return Error{EIO, flavour.name + " created a container without an id"};
  std::unique_ptr<EngineSession> session(new EngineSession(flavour, spec, id));
  if (auto started = session->client_.request("POST", "/containers/" + id + "/start"); !started) {
    return Error{EIO, engine_error("starting the " + flavour.name + " container", started.error())};
  }
  return session;
}

Result<EngineSession::Captured> EngineSession::run_exec(const std::vector<std::string>& argv,
                                                        const std::vector<std::string>& env,
                                                        double wall_seconds, std::uint64_t cap,
                                                        bool merge_stdout, RunObserver* observer) {
  json body = {
      {"AttachStdout", true}, {"AttachStderr", true}, {"Tty", false}, {"Cmd", argv}, {"Env", env}};
  auto created = client_.request("POST", "/containers/" + id_ + "/exec", body.dump());
  if (!created) return Error{EIO, engine_error("starting a command", created.error())};
  std::string exec_id = json::parse(created->body, nullptr, false).value("Id", "");
  Captured captured;
  const CancellationToken* token = observer != nullptr ? observer->cancellation() : nullptr;
  auto started = Clock::now();
  auto deadline = started + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(wall_seconds));
  Demultiplexer demux([&](int stream, std::string_view payload) {
    bool to_err = stream == 2 || merge_stdout;
    keep(to_err ? captured.err : captured.out, payload, cap);
    if (observer != nullptr) {
      observer->on_output(to_err ? StreamId::kStderr : StreamId::kStdout, payload);
    }
  });
  auto streamed = client_.stream(
      "POST", "/exec/" + exec_id + "/start", json{{"Detach", false}, {"Tty", false}}.dump(),
      [&](std::string_view chunk) { demux.feed(chunk); },
      [&] {
        if (token != nullptr && token->cancelled()) captured.cancelled = true;
        if (Clock::now() >= deadline) captured.timed_out = true;
        return !captured.cancelled && !captured.timed_out;
      });
  if (!streamed) return streamed.error();
  if (streamed->interrupted) {
    if (auto killed = kill_processes(); !killed) return killed.error();
  }
  captured.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  // The exec's exit code, once the engine has seen it end.
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto inspected = client_.request("GET", "/exec/" + exec_id + "/json");
    if (!inspected) return inspected.error();
    json state = json::parse(inspected->body, nullptr, false);
    if (state.is_object() && !state.value("Running", true)) {
      captured.exit_code = state["ExitCode"].is_number() ? state["ExitCode"].get<long>() : -1;
      return captured;
    }
    usleep(10000);
  }
  return Error{ETIMEDOUT, "the engine did not report the command's end"};
}

Status EngineSession::kill_processes() {
  // As the sandbox user, every process it can signal: all of the sandbox's but PID 1, which
  // the kernel spares, and the killing shell itself.
  json body = {{"AttachStdout", true},
               {"AttachStderr", true},
               {"Tty", false},
               {"Cmd", {"sh", "-c", "kill -KILL -1"}}};
  Client killer(flavour_.endpoint);
  auto created = killer.request("POST", "/containers/" + id_ + "/exec", body.dump());
  if (!created) return Error{EIO, engine_error("killing the sandbox's processes", created.error())};
  std::string exec_id = json::parse(created->body, nullptr, false).value("Id", "");
  auto started = killer.request("POST", "/exec/" + exec_id + "/start",
                                json{{"Detach", false}, {"Tty", false}}.dump());
  if (!started) return Error{EIO, engine_error("killing the sandbox's processes", started.error())};
  return {};
}

RunResult EngineSession::result_of(Captured&& captured, const ExecRequest& request) {
  RunResult result;
  result.backend = flavour_.name;
  result.stdout_data = std::move(captured.out);
  result.stderr_data = std::move(captured.err);
  result.duration_ms = captured.duration_ms;
  if (captured.cancelled) {
    result.outcome = Outcome::kCancelled;
  } else if (captured.timed_out) {
    result.outcome = Outcome::kTimedOut;
    result.signal = SIGKILL;
  } else if (captured.exit_code > 128 && captured.exit_code < 128 + 65) {
    // The engine reports a signalled exec as 128+N, as a shell does.
    result.outcome = Outcome::kSignaled;
    result.signal = static_cast<int>(captured.exit_code - 128);
    result.exit_code = static_cast<int>(captured.exit_code);
  } else if (captured.exit_code == 126 || captured.exit_code == 127) {
    result.outcome = Outcome::kExited;
    result.exit_code = static_cast<int>(captured.exit_code);
  } else {
    result.exit_code = static_cast<int>(captured.exit_code);
  }
  IsolationReport& report = result.isolation;
  report.namespaces = {"mount", "pid", "ipc", "uts"};
  if (spec_.network == NetworkMode::kNone && !request.network)
    report.namespaces.push_back("network");
  report.seccomp = true;
  report.seccomp_profile = spec_.seccomp_profile_path.value_or("default");
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  report.network = spec_.network == NetworkMode::kNone ? "none" : "bridge";
  report.root = "image " + spec_.image + " (" + flavour_.name + ")";
  report.limits_mode = flavour_.resource_limits ? flavour_.name : "none";
  report.limits_reason = flavour_.resource_limits
                             ? "enforced by " + flavour_.name + " (its cgroups)"
                             : flavour_.name +
                                   " cannot set resource limits here (rootless on "
                                   "cgroup v1)";
  if (!flavour_.resource_limits) report.not_enforced = {"memory", "pids", "cpus"};
  return result;
}

Result<RunResult> EngineSession::exec_once(const ExecRequest& request, RunObserver& observer) {
  std::vector<std::string> argv = request.argv;
  if (request.stdin_fd >= 0) {
    auto input = read_fd(request.stdin_fd, spec_.limits.tmp_bytes);
    if (!input) return input.error();
    if (auto written = put_file("/tmp", kStdinFile, *input); !written) return written.error();
    argv.insert(argv.begin(), {"sh", "-c", std::string("exec \"$@\" </tmp/") + kStdinFile, "sh"});
  }
  auto captured = run_exec(argv, request.env, request.wall_seconds, request.output_bytes,
                           request.stdout_to_stderr, &observer);
  if (!captured) return captured.error();
  RunResult result = result_of(std::move(*captured), request);
  if (!request.collect.directories.empty() && result.outcome != Outcome::kCancelled) {
    std::vector<std::string> tar = {"tar", "-C", spec_.workdir, "--ignore-failed-read", "-cf", "-"};
    for (const auto& dir : request.collect.directories) tar.push_back(dir);
    auto archive = run_exec(tar, {}, 30, request.collect.max_bytes + (8u << 20), false, nullptr);
    if (archive) {
      result.artifacts =
          artifacts_from_tar(archive->out.data, request.collect, &result.artifacts_truncated);
    }
  }
  return result;
}

Result<RunResult> EngineSession::exec(const ExecRequest& request, RunObserver& observer) {
  std::lock_guard lock(mutex_);
  if (closed_) return Error{EPIPE, "the session is closed"};
  auto result = exec_once(request, observer);
  // Nothing a command started outlives it, as in a native session.
  if (auto killed = kill_processes(); !killed && result) return killed.error();
  return result;
}

Status EngineSession::write_file(const std::string& path, std::string_view content) {
  if (auto valid = check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  if (closed_) return Error{EPIPE, "the session is closed"};
  return put_file(spec_.workdir, path, content);
}

Status EngineSession::put_file(const std::string& directory, const std::string& path,
                               std::string_view content) {
  std::size_t at = 0;
  do {
    std::string_view piece = content.substr(at, kWriteChunk);
    auto written = run_exec({"sh", "-c", kWriteScript, "sh", directory, path, base64_encode(piece),
                             at == 0 ? "new" : "append"},
                            {}, 30, 4096, false, nullptr);
    if (!written) return written.error();
    if (int refused = refusal_errno(written->exit_code); refused != 0) {
      return session_path_error(path, refused);
    }
    if (written->exit_code != 0) {
      return Error{EIO, "writing '" + path + "' in the sandbox: " + written->err.data};
    }
    at += piece.size();
  } while (at < content.size());
  return {};
}

Result<FileContent> EngineSession::read_file(const std::string& path, std::uint64_t max_bytes) {
  if (auto valid = check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  if (closed_) return Error{EPIPE, "the session is closed"};
  auto read =
      run_exec({"sh", "-c", kReadScript, "sh", spec_.workdir, path, std::to_string(max_bytes)}, {},
               30, max_bytes + 64, false, nullptr);
  if (!read) return read.error();
  if (int refused = refusal_errno(read->exit_code); refused != 0) {
    return session_path_error(path, refused);
  }
  std::string& out = read->out.data;
  std::size_t newline = out.find('\n');
  if (read->exit_code != 0 || newline == std::string::npos) {
    return Error{EIO, "reading '" + path + "' in the sandbox: " + read->err.data};
  }
  FileContent content;
  content.size = std::stoull(out.substr(0, newline));
  content.data = out.substr(newline + 1);
  return content;
}

Result<std::vector<FileEntry>> EngineSession::list_files(const std::string& path,
                                                         std::size_t max_entries) {
  if (auto valid = check_session_path(path, true); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  if (closed_) return Error{EPIPE, "the session is closed"};
  auto listed = run_exec({"sh", "-c", kListScript, "sh", spec_.workdir, path}, {}, 30, 8u << 20,
                         false, nullptr);
  if (!listed) return listed.error();
  if (int refused = refusal_errno(listed->exit_code); refused != 0) {
    return session_path_error(path, refused);
  }
  if (listed->exit_code != 0) {
    return Error{EIO, "listing '" + path + "' in the sandbox: " + listed->err.data};
  }
  std::vector<FileEntry> entries;
  const std::string& out = listed->out.data;
  for (std::size_t at = 0; at < out.size();) {
    std::size_t end = out.find('\0', at);
    if (end == std::string::npos) break;
    std::string line = out.substr(at, end - at);
    at = end + 1;
    std::size_t space = line.find(' '), second = line.find(' ', space + 1);
    if (space == std::string::npos || second == std::string::npos) continue;
    char type = line[0];
    FileEntry entry;
    entry.name = line.substr(second + 1);
    entry.type = type == 'f'   ? "file"
                 : type == 'd' ? "directory"
                 : type == 'l' ? "symlink"
                               : "other";
    entry.size = std::stoull(line.substr(space + 1, second - space - 1));
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.name < b.name; });
  if (entries.size() > max_entries) entries.resize(max_entries);
  return entries;
}

void EngineSession::close() {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  (void)client_.request("DELETE", "/containers/" + id_ + "?force=true&v=true");
}

}  // namespace paddock::engine
