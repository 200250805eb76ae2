// A session's resident process (a live kernel) and its warm interpreter, parked until a call
// comes.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <utility>

#include "runtime/native/init/session_channel.h"
#include "runtime/native/native_session.h"
#include "runtime/native/native_session_parts.h"
#include "runtime/native/run_report.h"

namespace paddock::native {

using namespace native_session_parts;

core::Result<runtime::ResidentProcess> NativeSession::start_resident(
    const runtime::ExecRequest& request) {
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  auto packet = command_packet(init::SessionRequestKind::kStartResident, request);
  if (!packet) return packet.error();
  auto input = make_capture_pipe();  // read end for the resident, write end for us
  if (!input) return input.error();
  auto output = make_capture_pipe();
  if (!output) return output.error();
  // The resident reads its stdin blocking; we write ours with poll (LiveKernel).
  fcntl(input->read_end.get(), F_SETFL, 0);
  fcntl(input->write_end.get(), F_SETFL, O_NONBLOCK);
  int fds[3] = {input->read_end.get(), output->write_end.get(), output->write_end.get()};
  StartedSandbox& sandbox = launched_->sandbox;
  if (int error = init::send_packet(sandbox.channel.get(), packet->get(),
                                    init::kSessionHeaderSize + (*packet)->length, fds, 3);
      error != 0) {
    return core::system_error("starting the session's resident process", error);
  }
  input->read_end.reset();
  output->write_end.reset();
  core::UniqueFd passed;
  auto started = await_reply(init::ChildMessageKind::kResidentStarted, &passed);
  if (!started) return started.error();
  if (started->error != 0) {
    std::string what = "starting the session's resident process " + request.argv.front();
    if (started->phase != init::SetupPhase::kExec)
      what += std::string(" (") + init::describe(started->phase) + ")";
    return core::system_error(what, started->error);
  }
  return runtime::ResidentProcess{std::move(input->write_end), std::move(output->read_end)};
}

void NativeSession::kill_resident() {
  std::lock_guard lock(mutex_);
  (void)ask(init::SessionRequestKind::kKillResident, init::ChildMessageKind::kGo);
}

void NativeSession::describe_cell(runtime::RunResult& result) {
  std::lock_guard lock(mutex_);
  if (!launched_) return;
  CgroupOutcome cgroup = command_cgroup();
  runtime::Limits limits = runtime::limits_of(shape_.limits, base_);
  result.isolation =
      isolation_report(shape_, base_, limits, launched_->ids, *launched_->prepared, cgroup);
  result.oom_killed = result.oom_killed || cgroup.usage.oom_killed;
  result.refused.process_limit += cgroup.usage.pids_max_events;
  result.memory_peak_bytes = cgroup.usage.memory_peak_bytes;
}

namespace {

// Writes all of `data` to a non-blocking pipe, waiting at most `timeout_ms` for room each time:
// 0, or an errno (EPIPE when its reader is gone, ETIMEDOUT when it stopped reading).
int write_within(int fd, std::string_view data, int timeout_ms) {
  while (!data.empty()) {
    ssize_t wrote = write(fd, data.data(), data.size());
    if (wrote > 0) {
      data.remove_prefix(static_cast<std::size_t>(wrote));
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote == 0 || errno != EAGAIN) return wrote == 0 ? EIO : errno;
    pollfd room{fd, POLLOUT, 0};
    int ready = poll(&room, 1, timeout_ms);
    if (ready == 0) return ETIMEDOUT;
    if (ready < 0 && errno != EINTR) return errno;
  }
  return 0;
}

// The last lines an interpreter that ended wrote to its own stderr (streams made at its start),
// for the error that says so: ": LINE / LINE", or nothing. A policy's loader that fails says why
// there.
std::string last_words(int stderr_read_end) {
  if (stderr_read_end < 0) return "";
  char tail[4096];
  std::string text;
  ssize_t got;
  // At most a pipe's worth: something of the sandbox that still writes there (a preloaded
  // package's child) must not keep this thread reading.
  for (int reads = 0; reads < 16 && (got = read(stderr_read_end, tail, sizeof tail)) > 0; ++reads) {
    text.append(tail, static_cast<std::size_t>(got));
    if (text.size() > 2 * sizeof tail) text.erase(0, text.size() - sizeof tail);
  }
  // Its last few lines, on one: an interpreter's last line alone can be "Execution halted".
  std::string said;
  std::size_t end = text.size();
  for (int lines = 0; lines < 4 && end > 0; ++lines) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) --end;
    std::size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    if (end > start) said = text.substr(start, end - start) + (said.empty() ? "" : " / " + said);
    end = start;
  }
  if (said.size() > 400) said.erase(0, said.size() - 400);
  return said.empty() ? "" : ": " + said;
}

}  // namespace

// How long a warm interpreter may take to start and preload before it is given up: importing
// the usual data libraries takes python about 1.5 s of CPU, and far longer on a loaded machine.
constexpr int kParkedReadyTimeoutMs = 120'000;
// How long a warm interpreter has to say it took its call (send_to_parked) before the call is
// taken as its anyway: its loader answers at once, so only a stalled machine comes near this.
constexpr int kParkedTookTimeoutMs = 10'000;

core::Status NativeSession::park(const runtime::WarmInterpreter& interpreter) {
  if (auto wrote = write_file(interpreter.loader.path, interpreter.loader.content); !wrote) {
    return wrote.error().context("writing the warm interpreter's loader");
  }
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  if (parked_.valid()) return core::Error{EBUSY, "an interpreter already waits in this sandbox"};
  runtime::ExecRequest request;
  request.argv = interpreter.program;
  request.env = interpreter.env;
  request.env.insert(request.env.end(), interpreter.start_env.begin(), interpreter.start_env.end());
  auto packet = command_packet(init::SessionRequestKind::kExec, request);
  if (!packet) return packet.error();
  if (interpreter.call_on_pipes && !interpreter.streams_from_start) {
    return core::invalid_input("a warm interpreter's call comes on pipes only with its streams");
  }
  // ours: what we read its answers on; theirs: what it reads its call on. On pipes, the call
  // goes on ours_call and the answers come on theirs_answer.
  core::UniqueFd ours, theirs, ours_call, theirs_answer;
  if (interpreter.call_on_pipes) {
    int call[2], answer[2];
    if (pipe2(call, O_CLOEXEC) != 0)
      return core::system_error("making the warm interpreter's pipe");
    theirs.reset(call[0]);
    ours_call.reset(call[1]);
    if (pipe2(answer, O_CLOEXEC) != 0)
      return core::system_error("making the warm interpreter's pipe");
    ours.reset(answer[0]);
    theirs_answer.reset(answer[1]);
    // Written with poll (send_to_parked): an interpreter that stopped reading holds up no call.
    fcntl(ours_call.get(), F_SETFL, O_NONBLOCK);
    // The loader opens them by name (/proc/self/fd), as the sandbox's user, whom a pipe's mode
    // (0600, ours) refuses. Only a process that holds one, or may trace one that does, can name
    // it: the interpreter, and this server.
    if (fchmod(theirs.get(), 0644) != 0 || fchmod(ours.get(), 0622) != 0) {
      return core::system_error("opening the warm interpreter's pipes to it");
    }
  } else {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      return core::system_error("making the warm interpreter's socket");
    }
    ours.reset(pair[0]);
    theirs.reset(pair[1]);
  }
  core::UniqueFd input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  core::UniqueFd output(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!input.valid() || !output.valid()) return core::system_error("opening /dev/null");
  // stdin is /dev/null as a cold run's is when the call brings none (python decides at start-up
  // whether stdin can seek). Either the call brings all three streams, and its stdout is the
  // socket it waits on until then; or they are its call's from the start, and its channel comes
  // after them.
  int fds[5] = {input.get(), theirs.get(), output.get(), -1, -1};
  int fd_count = 3;
  std::optional<Pipe> out, err;
  if (interpreter.streams_from_start) {
    auto made_out = make_capture_pipe();
    if (!made_out) return made_out.error();
    auto made_err = make_capture_pipe();
    if (!made_err) return made_err.error();
    out = std::move(*made_out);
    err = std::move(*made_err);
    fds[1] = out->write_end.get();
    fds[2] = err->write_end.get();
    fds[3] = theirs.get();
    fds[4] = theirs_answer.get();
    fd_count = theirs_answer.valid() ? 5 : 4;
  }
  StartedSandbox& sandbox = launched_->sandbox;
  if (int error = init::send_packet(sandbox.channel.get(), packet->get(),
                                    init::kSessionHeaderSize + (*packet)->length, fds, fd_count);
      error != 0) {
    return core::system_error("starting the warm interpreter", error);
  }
  theirs.reset();
  theirs_answer.reset();
  if (out) out->write_end.reset();
  if (err) err->write_end.reset();
  for (;;) {
    core::UniqueFd passed;
    auto message = receive_message(sandbox, &passed);
    if (!message) return message.error().context("starting the warm interpreter");
    if (message->kind == init::ChildMessageKind::kCommandStarted) break;
    if (message->kind == init::ChildMessageKind::kSetupFailed) {
      return core::system_error(
          std::string("starting the warm interpreter (") + describe(message->phase) + ")",
          message->error != 0 ? message->error : EIO);
    }
  }
  pollfd watched[2] = {{ours.get(), POLLIN, 0}, {sandbox.init.pidfd(), POLLIN, 0}};
  int ready;
  while ((ready = poll(watched, 2, kParkedReadyTimeoutMs)) < 0 && errno == EINTR) {
  }
  if (ready == 0) return core::Error{ETIMEDOUT, "the warm interpreter was not ready within 120 s"};
  char said[64] = {};
  long long cpu_ns = -1;
  ssize_t got = (watched[0].revents & POLLIN) != 0 ? read(ours.get(), said, sizeof said - 1) : -1;
  if (got <= 0 || std::sscanf(said, "ready %lld", &cpu_ns) != 1 || cpu_ns < 0) {
    return core::Error{EIO, "the warm interpreter ended before it was ready" +
                                last_words(err ? err->read_end.get() : -1)};
  }
  if (int error =
          init::send_session_request(sandbox.channel.get(), init::SessionRequestKind::kParkedReady);
      error != 0) {
    return core::system_error("telling the session its interpreter is ready", error);
  }
  parked_ = std::move(ours);
  parked_call_ = std::move(ours_call);
  if (out) parked_stdout_ = std::move(out->read_end);
  if (err) parked_stderr_ = std::move(err->read_end);
  parked_program_ = interpreter.program;
  parked_cpu_us_ = cpu_ns / 1000;
  return {};
}

core::Status NativeSession::send_to_parked(const runtime::ExecRequest& request,
                                           const int (&fds)[3]) {
  if (request.argv != parked_program_) {
    return core::invalid_input("this sandbox's interpreter runs its language's program only");
  }
  bool streams_made = parked_stdout_.valid();
  if (streams_made && (request.stdin_fd >= 0 || request.stdout_to_stderr)) {
    return core::invalid_input("this sandbox's interpreter has its streams: it takes no stdin");
  }
  std::string data("go\0", 3);
  for (const auto& entry : command_env(request)) {
    if (entry.find('\0') != std::string::npos) {
      return core::invalid_input("an argument or environment entry contains a NUL byte");
    }
    data += entry;
    data += '\0';
  }
  if (data.size() > init::kSessionDataMax) {
    return core::invalid_input("the command and its environment are longer than 64 KiB");
  }
  // An interpreter killed while it waited has closed its end, and init has said so (or is about
  // to): nothing of the call has reached it yet, so the call may still run cold.
  pollfd gone[2] = {{parked_.get(), POLLRDHUP, 0}, {launched_->sandbox.channel.get(), POLLIN, 0}};
  if (poll(gone, 2, 0) > 0) {
    parked_.reset();
    parked_call_.reset();
    return core::Error{EPIPE, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
  }
  core::UniqueFd parked = std::move(parked_);
  core::UniqueFd parked_call = std::move(parked_call_);
  // On pipes, the call ends where its pipe does.
  int error = parked_call.valid() ? write_within(parked_call.get(), data, kParkedTookTimeoutMs)
                                  : init::send_packet(parked.get(), data.data(), data.size(), fds,
                                                      streams_made ? 0 : 3);
  parked_call.reset();
  // Gone before it took the call (killed, or ended by its preload): nothing of the call ran.
  if (error == EPIPE || error == ECONNRESET || error == ECONNREFUSED) {
    return core::Error{error, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
  }
  if (error != 0) return core::system_error("handing the call to the warm interpreter", error);
  // The loader says "took" before it runs anything of the call. A SIGKILL takes effect a moment
  // after it is sent, so an interpreter killed just before the call came can still have let it
  // be sent; it closes its end without that word, and nothing of the call ran. One that is only
  // slow (a loaded machine) is given the call after kParkedTookTimeoutMs.
  pollfd took{parked.get(), POLLIN | POLLRDHUP, 0};
  int ready;
  while ((ready = poll(&took, 1, kParkedTookTimeoutMs)) < 0 && errno == EINTR) {
  }
  char word[8];
  if (ready == 1 && read(parked.get(), word, sizeof word) <= 0) {
    return core::Error{EPIPE, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
  }
  return {};
}

}  // namespace paddock::native
