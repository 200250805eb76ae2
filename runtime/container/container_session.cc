#include "runtime/container/container_session.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>

#include "core/base64.h"
#include "runtime/container/container_config.h"
#include "runtime/container/session_scripts.h"
#include "runtime/container/tar_reader.h"
#include "runtime/step_runner.h"

namespace paddock::container {
namespace {

// Bytes of a file one argument carries: base64 of them must fit an argument (128 KiB with its
// NUL); kWritePieces of them go in one exec, well within the 2 MiB of arguments execve takes.
// A transport that carries stdin takes kWriteChunkOnStdin per exec instead.
constexpr std::size_t kWritePiece = 90u << 10;
constexpr std::size_t kWritePieces = 12;
constexpr std::size_t kWriteChunkOnStdin = 8u << 20;
constexpr const char* kStdinFile = ".paddock-stdin";  // in /tmp
// How long paddock's own helper commands (files, archives, the kill) may take.
constexpr double kHelperSeconds = 30;

core::Result<std::string> read_fd(int fd, std::size_t max_bytes) {
  std::string data;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got == 0) return data;
    if (got < 0) return core::system_error("reading the program's stdin");
    data.append(buffer, static_cast<std::size_t>(got));
    if (data.size() > max_bytes)
      return core::invalid_input("stdin is larger than the sandbox's /tmp");
  }
}

// A size the container printed. The reply is the image's tools' (and a hostile image's), so an
// odd one is an error for this request, never an exception.
std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (failure != std::errc{} || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

ContainerSession::ContainerSession(std::string backend, runtime::SandboxShape shape,
                                   std::unique_ptr<ExecTransport> transport,
                                   runtime::IsolationReport isolation)
    : backend_(std::move(backend)),
      shape_(std::move(shape)),
      transport_(std::move(transport)),
      isolation_(std::move(isolation)) {}

core::Result<ExecOutcome> ContainerSession::run(const ExecCommand& command) {
  auto outcome = transport_->run(command);
  if (outcome && (outcome->timed_out || outcome->cancelled)) {
    // The transport stopped waiting; the command itself is ended here.
    if (auto killed = kill_processes(); !killed) return killed.error();
  }
  return outcome;
}

core::Result<ExecOutcome> ContainerSession::run_helper(std::vector<std::string> argv,
                                                       std::uint64_t output_bytes,
                                                       std::string input) {
  return run({std::move(argv), {}, kHelperSeconds, output_bytes, false, nullptr, std::move(input)});
}

core::Status ContainerSession::kill_processes() {
  // As the sandbox user, every process it can signal: all of the sandbox's but PID 1, which
  // the kernel spares, and the killing shell itself.
  auto killed =
      transport_->run({{"sh", "-c", "kill -KILL -1"}, {}, kHelperSeconds, 4096, false, nullptr});
  if (!killed) return killed.error().context("killing the sandbox's processes");
  return {};
}

runtime::RunResult ContainerSession::result_of(ExecOutcome&& captured,
                                               const runtime::ExecRequest& request) {
  runtime::RunResult result;
  result.backend = backend_;
  result.stdout_data = std::move(captured.out);
  result.stderr_data = std::move(captured.err);
  result.duration_ms = captured.duration_ms;
  if (captured.cancelled) {
    result.outcome = runtime::Outcome::kCancelled;
  } else if (captured.timed_out) {
    result.outcome = runtime::Outcome::kTimedOut;
    result.signal = SIGKILL;
  } else if (captured.exit_code > 128 && captured.exit_code < 128 + 65) {
    // The engine reports a signalled exec as 128+N, as a shell does.
    result.outcome = runtime::Outcome::kSignaled;
    result.signal = static_cast<int>(captured.exit_code - 128);
    result.exit_code = static_cast<int>(captured.exit_code);
  } else if (captured.exit_code == 126 || captured.exit_code == 127) {
    result.outcome = runtime::Outcome::kExited;
    result.exit_code = static_cast<int>(captured.exit_code);
  } else {
    result.exit_code = static_cast<int>(captured.exit_code);
  }
  result.isolation = isolation_;
  if (request.network) result.isolation.network = "the container's (this command)";
  return result;
}

core::Result<runtime::RunResult> ContainerSession::exec_once(const runtime::ExecRequest& request,
                                                             runtime::RunObserver& observer) {
  std::vector<std::string> argv = request.argv;
  if (request.stdin_fd >= 0) {
    auto input = read_fd(request.stdin_fd, shape_.limits.tmp_bytes);
    if (!input) return input.error();
    if (auto written = put_file("/tmp", kStdinFile, *input); !written) return written.error();
    argv.insert(argv.begin(), {"sh", "-c", std::string("exec \"$@\" </tmp/") + kStdinFile, "sh"});
  }
  auto captured = run({argv, request.env, request.wall_seconds, request.output_bytes,
                       request.stdout_to_stderr, &observer});
  if (!captured) return captured.error();
  runtime::RunResult result = result_of(std::move(*captured), request);
  if (!request.collect.directories.empty() && result.outcome != runtime::Outcome::kCancelled) {
    std::vector<std::string> tar = {"tar", "-C", shape_.workdir, "--ignore-failed-read",
                                    "-cf", "-"};
    for (const auto& dir : request.collect.directories) tar.push_back(dir);
    auto archive = run_helper(tar, request.collect.max_bytes + (8u << 20));
    if (archive) {
      TarArtifacts found = artifacts_from_tar(archive->out.data, request.collect);
      result.artifacts = std::move(found.artifacts);
      result.omit_artifacts(std::move(found.omitted));
    }
  }
  return result;
}

core::Status ContainerSession::end_installers_network() {
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  // Nothing the installer left running may carry a connection into the program's step.
  if (auto killed = kill_processes(); !killed) return killed;
  if (auto left = transport_->leave_networks(); !left) {
    return left.error().context("taking the installer's network away before the program");
  }
  return {};
}

core::Result<runtime::RunResult> ContainerSession::exec(const runtime::ExecRequest& request,
                                                        runtime::RunObserver& observer) {
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  // An engine's session container is made without a network (a pod with a deny-all
  // NetworkPolicy: "none (...)"), and one cannot be given to a single command without giving it
  // to everything running there: say so at once, rather than let an installer wait for name
  // resolution until it gives up.
  if (request.network && isolation_.network.starts_with("none")) {
    return core::Error{ENOTSUP, "a " + backend_ +
                                    " session has no network, so its installer cannot reach a "
                                    "package index: pass `libraries` to a call without a session, "
                                    "or use the native backend, whose sessions get an installer's "
                                    "network for the install alone"};
  }
  auto result = exec_once(request, observer);
  // Nothing a command started outlives it, as in a native session.
  if (auto killed = kill_processes(); !killed && result) return killed.error();
  return result;
}

core::Status ContainerSession::write_file(const std::string& path, std::string_view content) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  return put_file(shape_.workdir, path, content);
}

std::size_t ContainerSession::write_chunk() const {
  return transport_->carries_input() ? kWriteChunkOnStdin : kWritePiece * kWritePieces;
}

core::Status ContainerSession::put_file(const std::string& directory, const std::string& path,
                                        std::string_view content) {
  std::size_t at = 0;
  do {
    std::string_view piece = content.substr(at, write_chunk());
    if (auto put = put_piece(directory, path, piece, at == 0); !put) return put;
    at += piece.size();
  } while (at < content.size());
  return {};
}

core::Status ContainerSession::put_piece(const std::string& directory, const std::string& path,
                                         std::string_view piece, bool first) {
  std::vector<std::string> argv = {
      "sh", "-c", kWriteScript, "sh", directory, path, first ? "new" : "append"};
  std::string input;
  if (transport_->carries_input()) {
    // The content on stdin (its length in argv).
    input = core::base64_encode(piece);
    argv.push_back("-");
    argv.push_back(std::to_string(input.size()));
  } else {
    for (std::size_t part = 0; part < piece.size(); part += kWritePiece) {
      argv.push_back(core::base64_encode(piece.substr(part, kWritePiece)));
    }
  }
  auto written = run_helper(std::move(argv), 4096, std::move(input));
  if (!written) return written.error();
  if (int refused = refusal_errno(written->exit_code); refused != 0) {
    return runtime::session_path_error(path, refused);
  }
  if (written->exit_code != 0) {
    return core::Error{EIO, "writing '" + path + "' in the sandbox: " + written->err.data};
  }
  return {};
}

core::Status ContainerSession::copy_in(const std::string& path, int source_fd, std::uint64_t size,
                                       bool executable) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  // A piece at a time, so that a large file is never held whole.
  std::string piece(static_cast<std::size_t>(std::min<std::uint64_t>(size, write_chunk())), '\0');
  std::uint64_t at = 0;
  do {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), size - at));
    ssize_t got = want == 0 ? 0 : pread(source_fd, piece.data(), want, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return core::system_error("reading the host file for '" + path + "'");
    auto put = put_piece(shape_.workdir, path,
                         std::string_view(piece.data(), static_cast<std::size_t>(got)), at == 0);
    if (!put) return put;
    at += static_cast<std::uint64_t>(got);
    if (got == 0) break;  // the file ended (or shrank meanwhile)
  } while (at < size);
  if (!executable) return {};
  // The write script refused any symlink on the way; chmod's own path is the same one.
  auto made = run_helper({"chmod", "755", "--", shape_.workdir + "/" + path}, 4096);
  if (!made) return made.error();
  if (made->exit_code != 0) {
    return core::Error{EIO, "making '" + path + "' executable in the sandbox: " + made->err.data};
  }
  return {};
}

core::Result<runtime::FileContent> ContainerSession::read_file(const std::string& path,
                                                               std::uint64_t max_bytes,
                                                               std::uint64_t offset) {
  if (auto valid = runtime::check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  auto read = run_helper({"sh", "-c", kReadScript, "sh", shape_.workdir, path,
                          std::to_string(max_bytes), std::to_string(offset + 1)},
                         max_bytes + 64);
  if (!read) return read.error();
  if (int refused = refusal_errno(read->exit_code); refused != 0) {
    return runtime::session_path_error(path, refused);
  }
  std::string& out = read->out.data;
  std::size_t newline = out.find('\n');
  if (read->exit_code != 0 || newline == std::string::npos) {
    return core::Error{EIO, "reading '" + path + "' in the sandbox: " + read->err.data};
  }
  runtime::FileContent content;
  auto size = parse_size(std::string_view(out).substr(0, newline));
  if (!size)
    return core::Error{EIO, "reading '" + path + "' in the sandbox: an odd size from stat"};
  content.size = *size;
  content.data = out.substr(newline + 1);
  return content;
}

core::Result<std::vector<runtime::FileEntry>> ContainerSession::list_files(
    const std::string& path, std::size_t max_entries) {
  if (auto valid = runtime::check_session_path(path, true); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  auto listed = run_helper({"sh", "-c", kListScript, "sh", shape_.workdir, path}, 8u << 20);
  if (!listed) return listed.error();
  if (int refused = refusal_errno(listed->exit_code); refused != 0) {
    return runtime::session_path_error(path, refused);
  }
  if (listed->exit_code != 0) {
    return core::Error{EIO, "listing '" + path + "' in the sandbox: " + listed->err.data};
  }
  std::vector<runtime::FileEntry> entries;
  const std::string& out = listed->out.data;
  for (std::size_t at = 0; at < out.size();) {
    std::size_t end = out.find('\0', at);
    if (end == std::string::npos) break;
    std::string line = out.substr(at, end - at);
    at = end + 1;
    std::size_t space = line.find(' '), second = line.find(' ', space + 1);
    if (space == std::string::npos || second == std::string::npos) continue;
    char type = line[0];
    runtime::FileEntry entry;
    entry.name = line.substr(second + 1);
    entry.type = type == 'f'   ? "file"
                 : type == 'd' ? "directory"
                 : type == 'l' ? "symlink"
                               : "other";
    auto size = parse_size(std::string_view(line).substr(space + 1, second - space - 1));
    if (!size) continue;  // not a line find printed
    entry.size = *size;
    entries.push_back(std::move(entry));
  }
  std::sort(
      entries.begin(), entries.end(),
      [](const runtime::FileEntry& a, const runtime::FileEntry& b) { return a.name < b.name; });
  if (entries.size() > max_entries) entries.resize(max_entries);
  return entries;
}

core::Result<runtime::SessionUsage> ContainerSession::usage() {
  std::lock_guard lock(closing_mutex_);
  if (closed_) return core::Error{EPIPE, "the session is closed"};
  // Not through run(): a usage helper that overran must not kill the command it measures. The
  // kill that ends a command may end the helper too (128 + SIGKILL): then it is asked again.
  core::Result<ExecOutcome> counted = core::Error{EIO, ""};
  for (int attempt = 0; attempt < 2; ++attempt) {
    counted = transport_->run({{"sh", "-c", kUsageScript, "sh", shape_.workdir},
                               {},
                               kHelperSeconds,
                               4096,
                               false,
                               nullptr});
    if (!counted || counted->exit_code != 128 + SIGKILL) break;
  }
  if (!counted) return counted.error().context("measuring the session");
  unsigned long long bytes = 0;
  long processes = -1;
  if (counted->exit_code != 0 ||
      std::sscanf(counted->out.data.c_str(), "%llu %ld", &bytes, &processes) != 2 ||
      processes < 0) {
    return core::Error{EIO, "measuring the session: " + counted->out.data + counted->err.data};
  }
  return runtime::SessionUsage{bytes, static_cast<std::uint32_t>(processes)};
}

void ContainerSession::close() {
  std::lock_guard lock(mutex_);
  std::lock_guard closing(closing_mutex_);
  if (closed_) return;
  closed_ = true;
  transport_->remove();
}

core::Result<runtime::RunResult> run_to_the_end(ContainerSession& session,
                                                const runtime::SandboxShape& shape,
                                                const runtime::RunPlan& plan,
                                                runtime::RunObserver& observer) {
  runtime::StepSandbox sandbox;
  core::UniqueFd stdin_file;
  sandbox.stdin_fd = plan.stdin_fd;
  if (sandbox.stdin_fd < 0 && plan.stdin_path) {
    stdin_file.reset(::open(plan.stdin_path->c_str(), O_RDONLY | O_CLOEXEC));
    if (!stdin_file.valid())
      return core::system_error("cannot open stdin file " + *plan.stdin_path);
    sandbox.stdin_fd = stdin_file.get();
  }
  for (const auto& file : shape.support_files) {
    if (auto written = session.write_file(file.path, file.content); !written) {
      return written.error();
    }
  }
  sandbox.exec = [&session](const runtime::ExecRequest& request,
                            const std::vector<runtime::SandboxFile>& files,
                            runtime::RunObserver& watching) -> core::Result<runtime::RunResult> {
    for (const auto& file : files) {
      if (auto written = session.write_file(file.path, file.content); !written) {
        return written.error();
      }
    }
    return session.exec_once(request, watching);
  };
  sandbox.write_file = [&session](const runtime::SandboxFile& file) {
    return session.write_file(file.path, file.content);
  };
  // The steps after the installer's run without its network where the policy gives them none;
  // a sandbox that cannot lose it runs nothing more.
  if (shape.network == runtime::NetworkMode::kNone && plan.networked_steps > 0) {
    sandbox.end_installers_network = [&session] { return session.end_installers_network(); };
  }
  auto result = runtime::run_steps(plan, sandbox, observer);
  session.close();
  return result;
}

}  // namespace paddock::container
