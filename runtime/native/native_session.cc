#include "runtime/native/native_session.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/file_tree.h"
#include "core/units.h"
#include "core/write_all.h"
#include "net/egress/proxy.h"
#include "runtime/native/artifacts.h"
#include "runtime/native/egress_plan.h"
#include "runtime/native/image_root_fallback.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/process_tree.h"
#include "runtime/native/run_report.h"

namespace paddock {
namespace {

constexpr int kReplyTimeoutMs = 30'000;

class QuietObserver final : public RunObserver {};

// The next message from init: false when init is gone or silent for too long.
Result<ChildMessage> receive_message(StartedSandbox& sandbox, UniqueFd* passed) {
  pollfd watched[2] = {{sandbox.channel.get(), POLLIN, 0}, {sandbox.init.pidfd(), POLLIN, 0}};
  int ready;
  while ((ready = poll(watched, 2, kReplyTimeoutMs)) < 0 && errno == EINTR) {
  }
  if (ready == 0) return Error{ETIMEDOUT, "the session's sandbox did not answer within 30 s"};
  if ((watched[0].revents & POLLIN) != 0) {
    ChannelPacket packet;
    ssize_t got = recvmsg(sandbox.channel.get(), &packet.header, MSG_CMSG_CLOEXEC);
    passed->reset(packet.received_fd());
    if (got == sizeof(ChildMessage)) return packet.message;
  }
  return Error{EPIPE, "the session's sandbox has ended; open a new session"};
}

// Bytes a sendfile call moves at most: small enough that a hasher following behind reads them
// from the page cache.
constexpr std::size_t kCopyChunk = 2u << 20;

// Copies `size` bytes from `in` (from offset 0) to `out` at its offset, in the kernel; the
// bytes copied, or -errno. Stops early where `in` ends.
long long copy_in_kernel(int in, int out, std::uint64_t size, const CopyProgress& progress) {
  off_t offset = 0;
  while (static_cast<std::uint64_t>(offset) < size) {
    std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(kCopyChunk, size - offset));
    ssize_t moved = sendfile(out, in, &offset, chunk);
    if (moved < 0 && errno == EINTR) continue;
    if (moved < 0) return -errno;
    if (moved == 0) break;
    if (progress) progress(static_cast<std::uint64_t>(offset));
  }
  return offset;
}

std::string file_type(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

constexpr const char* kEndedBeforeStart =
    "the session's sandbox has ended (killed, or out of memory); open a new session";

}  // namespace

Result<std::unique_ptr<Session>> NativeSession::open(const SandboxShape& shape, const RunPlan& base,
                                                     const net::egress::SecretBroker& broker) {
  return with_image_root_fallback<std::unique_ptr<Session>>(
      shape, [&base, &broker](const SandboxShape& attempt, bool& refused) {
        return open_once(attempt, base, broker, refused);
      });
}

Result<std::unique_ptr<Session>> NativeSession::open_once(const SandboxShape& shape,
                                                          const RunPlan& base,
                                                          const net::egress::SecretBroker& broker,
                                                          bool& refused) {
  QuietObserver observer;
  auto launched = launch_sandbox(shape, base, observer, LaunchMode::kSession, broker);
  if (!launched) return launched.error();
  std::unique_ptr<NativeSession> session(new NativeSession(shape, base, std::move(*launched)));
  session->launched_->sandbox.session = true;
  session->init_pid_ = session->launched_->sandbox.init.pid();
  session->killer_.reset(fcntl(session->launched_->sandbox.init.pidfd(), F_DUPFD_CLOEXEC, 3));
  if (auto ready = session->wait_until_ready(refused); !ready) return ready.error();
  return std::unique_ptr<Session>(std::move(session));
}

Status NativeSession::wait_until_ready(bool& refused) {
  for (;;) {
    UniqueFd passed;
    auto message = receive_message(launched_->sandbox, &passed);
    if (!message) return message.error().context("starting the session");
    if (message->kind == ChildMessageKind::kWorkdir) {
      workdir_ = std::move(passed);
      return {};
    }
    if (message->kind == ChildMessageKind::kSocketFactory) preview_factory_ = std::move(passed);
    if (message->kind == ChildMessageKind::kProxyListener && launched_->egress) {
      launched_->egress->serve(std::move(passed));
    }
    if (message->kind == ChildMessageKind::kSetupFailed) {
      refused = overlay_refused(shape_, *launched_->prepared, *message);
      Supervised failed;
      failed.setup_failure = *message;
      const std::vector<std::vector<std::string>> no_command;
      auto described =
          to_run_result(shape_, base_, RunReported{no_command, limits_of(shape_.limits, base_)},
                        *launched_->prepared, launched_->ids, std::move(failed), {});
      return described ? Error{EIO, "sandbox setup failed"} : described.error();
    }
  }
}

Result<UniqueFd> NativeSession::take_preview_factory() {
  // Not mutex_: a preview opens while a command runs (a server the command started).
  std::lock_guard lock(closing_mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  if (shape_.network == NetworkMode::kHost) {
    return Error{ENOTSUP,
                 "this session's sandbox shares the host's network: its ports are the host's, "
                 "and paddock previews none of them"};
  }
  if (!preview_factory_.valid()) {
    return Error{ENOTSUP, "this session's preview sockets are taken or were never made"};
  }
  return std::move(preview_factory_);
}

Status NativeSession::check_alive() const {
  if (!launched_) return Error{EPIPE, "the session is closed"};
  pollfd init{launched_->sandbox.init.pidfd(), POLLIN, 0};
  if (poll(&init, 1, 0) == 1) return Error{EPIPE, kEndedBeforeStart};
  return {};
}

Result<std::unique_ptr<SessionRequest>> NativeSession::command_packet(
    SessionRequestKind kind, const ExecRequest& request,
    const std::vector<SandboxFile>& files) const {
  if (request.argv.empty() || request.argv[0].empty()) return invalid_input("no command given");
  auto packet = std::make_unique<SessionRequest>();
  packet->kind = kind;
  packet->argc_or_mode = static_cast<std::int32_t>(request.argv.size());
  for (const auto& file : files) {
    if (auto valid = check_session_path(file.path); !valid) return valid.error();
    auto size = static_cast<std::uint32_t>(file.content.size());
    std::size_t needed = sizeof size + file.path.size() + 1 + file.content.size();
    if (packet->length + needed > kSessionDataMax) {
      return Error{E2BIG, "the command's files are longer than 64 KiB"};
    }
    char* at = packet->data + packet->length;
    std::memcpy(at, &size, sizeof size);
    std::memcpy(at + sizeof size, file.path.c_str(), file.path.size() + 1);
    std::memcpy(at + sizeof size + file.path.size() + 1, file.content.data(), file.content.size());
    packet->length += static_cast<std::uint32_t>(needed);
  }
  packet->files_length = packet->length;
  if (kind == SessionRequestKind::kExec && request.network)
    packet->flags = kSessionOwnProcessDomain;
  std::vector<std::string> strings = request.argv;
  for (auto& entry : command_env(request)) {
    strings.push_back(std::move(entry));
  }
  for (const auto& text : strings) {
    if (text.find('\0') != std::string::npos) {
      return invalid_input("an argument or environment entry contains a NUL byte");
    }
    if (packet->length + text.size() + 1 > kSessionDataMax) {
      std::string what = "the command and its environment are longer than 64 KiB";
      // With files, they may be what leaves no room (exec_with_files then sends them apart).
      return files.empty() ? invalid_input(what) : Error{E2BIG, what};
    }
    std::memcpy(packet->data + packet->length, text.c_str(), text.size() + 1);
    packet->length += static_cast<std::uint32_t>(text.size() + 1);
  }
  return packet;
}

std::vector<std::string> NativeSession::command_env(const ExecRequest& request) const {
  std::vector<std::string> env = merge_env(launched_->prepared->env_storage, request.env);
  // A program's way out is the proxy whatever its environment says, as in a one-off run (where
  // the proxy's variables come last); an installer's command brings its own.
  if (!shape_.allowed_hosts.empty() && !request.network)
    env = merge_env(env, net::egress::proxy_env(true));
  // The sandbox's placeholders stand whatever a request sets: a variable set to something else
  // would only send that in their place.
  return merge_env(env, launched_->brokered_env);
}

Result<ChildMessage> NativeSession::await_reply(ChildMessageKind reply, UniqueFd* passed) {
  for (;;) {
    passed->reset();
    auto message = receive_message(launched_->sandbox, passed);
    if (!message || message->kind == reply) return message;
  }
}

Result<ChildMessage> NativeSession::ask(SessionRequestKind kind, ChildMessageKind reply) {
  if (auto alive = check_alive(); !alive) return alive.error();
  if (int error = send_session_request(launched_->sandbox.channel.get(), kind); error != 0) {
    return system_error("asking the session's init", error);
  }
  if (reply == ChildMessageKind::kGo) return ChildMessage{};
  UniqueFd passed;
  return await_reply(reply, &passed);
}

Result<ResidentProcess> NativeSession::start_resident(const ExecRequest& request) {
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  auto packet = command_packet(SessionRequestKind::kStartResident, request);
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
  if (int error = send_packet(sandbox.channel.get(), packet->get(),
                              kSessionHeaderSize + (*packet)->length, fds, 3);
      error != 0) {
    return system_error("starting the session's resident process", error);
  }
  input->read_end.reset();
  output->write_end.reset();
  UniqueFd passed;
  auto started = await_reply(ChildMessageKind::kResidentStarted, &passed);
  if (!started) return started.error();
  if (started->error != 0) {
    std::string what = "starting the session's resident process " + request.argv.front();
    if (started->phase != SetupPhase::kExec)
      what += std::string(" (") + describe(started->phase) + ")";
    return system_error(what, started->error);
  }
  return ResidentProcess{std::move(input->write_end), std::move(output->read_end)};
}

Status NativeSession::sweep() {
  std::lock_guard lock(mutex_);
  auto swept = ask(SessionRequestKind::kSweep, ChildMessageKind::kSwept);
  if (!swept) return swept.error();
  if (swept->error != 0) return system_error("clearing the session's processes", swept->error);
  return {};
}

void NativeSession::kill_resident() {
  std::lock_guard lock(mutex_);
  (void)ask(SessionRequestKind::kKillResident, ChildMessageKind::kGo);
}

// How long a warm interpreter may take to start and preload before it is given up: importing
// the usual data libraries takes python about 1.5 s of CPU, and far longer on a loaded machine.
constexpr int kParkedReadyTimeoutMs = 120'000;

Status NativeSession::park(const WarmInterpreter& interpreter) {
  if (auto wrote = write_file(interpreter.loader.path, interpreter.loader.content); !wrote) {
    return wrote.error().context("writing the warm interpreter's loader");
  }
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  if (parked_.valid()) return Error{EBUSY, "an interpreter already waits in this sandbox"};
  ExecRequest request;
  request.argv = interpreter.program;
  request.env = interpreter.env;
  auto packet = command_packet(SessionRequestKind::kExec, request);
  if (!packet) return packet.error();
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    return system_error("making the warm interpreter's socket");
  }
  UniqueFd ours(pair[0]), theirs(pair[1]);
  UniqueFd input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd output(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!input.valid() || !output.valid()) return system_error("opening /dev/null");
  // Its stdout is the socket it waits on; stdin is /dev/null as a cold run's is when the call
  // brings none (python decides at start-up whether stdin can seek); the call brings all three.
  int fds[3] = {input.get(), theirs.get(), output.get()};
  StartedSandbox& sandbox = launched_->sandbox;
  if (int error = send_packet(sandbox.channel.get(), packet->get(),
                              kSessionHeaderSize + (*packet)->length, fds, 3);
      error != 0) {
    return system_error("starting the warm interpreter", error);
  }
  theirs.reset();
  for (;;) {
    UniqueFd passed;
    auto message = receive_message(sandbox, &passed);
    if (!message) return message.error().context("starting the warm interpreter");
    if (message->kind == ChildMessageKind::kCommandStarted) break;
    if (message->kind == ChildMessageKind::kSetupFailed) {
      return system_error(
          std::string("starting the warm interpreter (") + describe(message->phase) + ")",
          message->error != 0 ? message->error : EIO);
    }
  }
  pollfd watched[2] = {{ours.get(), POLLIN, 0}, {sandbox.init.pidfd(), POLLIN, 0}};
  int ready;
  while ((ready = poll(watched, 2, kParkedReadyTimeoutMs)) < 0 && errno == EINTR) {
  }
  if (ready == 0) return Error{ETIMEDOUT, "the warm interpreter was not ready within 120 s"};
  char said[64] = {};
  long long cpu_ns = -1;
  ssize_t got =
      (watched[0].revents & POLLIN) != 0 ? recv(ours.get(), said, sizeof said - 1, 0) : -1;
  if (got <= 0 || std::sscanf(said, "ready %lld", &cpu_ns) != 1 || cpu_ns < 0) {
    return Error{EIO, "the warm interpreter ended before it was ready"};
  }
  if (int error = send_session_request(sandbox.channel.get(), SessionRequestKind::kParkedReady);
      error != 0) {
    return system_error("telling the session its interpreter is ready", error);
  }
  parked_ = std::move(ours);
  parked_program_ = interpreter.program;
  parked_cpu_us_ = cpu_ns / 1000;
  return {};
}

Status NativeSession::send_to_parked(const ExecRequest& request, const int (&fds)[3]) {
  if (request.argv != parked_program_) {
    return invalid_input("this sandbox's interpreter runs its language's program only");
  }
  std::string data("go\0", 3);
  for (const auto& entry : command_env(request)) {
    if (entry.find('\0') != std::string::npos) {
      return invalid_input("an argument or environment entry contains a NUL byte");
    }
    data += entry;
    data += '\0';
  }
  if (data.size() > kSessionDataMax) {
    return invalid_input("the command and its environment are longer than 64 KiB");
  }
  // An interpreter killed while it waited has closed its end, and init has said so (or is about
  // to): nothing of the call has reached it yet, so the call may still run cold.
  pollfd gone[2] = {{parked_.get(), POLLRDHUP, 0}, {launched_->sandbox.channel.get(), POLLIN, 0}};
  if (poll(gone, 2, 0) > 0) {
    parked_.reset();
    return Error{EPIPE, kEndedBeforeStart, ErrorKind::kSandboxGone};
  }
  int error = send_packet(parked_.get(), data.data(), data.size(), fds, 3);
  parked_.reset();
  // Gone before it took the call (killed, or ended by its preload): nothing of the call ran.
  if (error == EPIPE || error == ECONNRESET || error == ECONNREFUSED) {
    return Error{error, kEndedBeforeStart, ErrorKind::kSandboxGone};
  }
  if (error != 0) return system_error("handing the call to the warm interpreter", error);
  return {};
}

Result<RunResult> NativeSession::exec(const ExecRequest& request, RunObserver& observer) {
  return exec_command(request, {}, observer);
}

Result<RunResult> NativeSession::exec_with_files(const std::vector<SandboxFile>& files,
                                                 const ExecRequest& request,
                                                 RunObserver& observer) {
  // A warm interpreter takes its call's files apart: it already runs, so they cannot come with
  // its command.
  if (parked_.valid()) {
    for (const auto& file : files) {
      if (auto wrote = write_file(file.path, file.content); !wrote) {
        // Gone before its interpreter was handed the call: nothing of it ran.
        int code = wrote.error().code;
        if (code == EPIPE || code == ECONNRESET || ended()) {
          return Error{EPIPE, kEndedBeforeStart, ErrorKind::kSandboxGone};
        }
        return wrote.error();
      }
    }
    return exec_command(request, {}, observer);
  }
  auto result = exec_command(request, files, observer);
  // Too much for one packet: the files go one by one (kOpen), then the command.
  if (!result && result.error().code == E2BIG && !files.empty()) {
    return Session::exec_with_files(files, request, observer);
  }
  return result;
}

Result<RunResult> NativeSession::exec_command(const ExecRequest& request,
                                              const std::vector<SandboxFile>& files,
                                              RunObserver& observer) {
  std::lock_guard lock(mutex_);
  // A sandbox gone before its init took the command (killed from outside) ran nothing of it:
  // kSandboxGone, which tells a warm run it may run cold instead.
  if (auto alive = check_alive(); !alive) {
    return Error{alive.error().code, alive.error().message, ErrorKind::kSandboxGone};
  }
  auto packet = command_packet(SessionRequestKind::kExec, request, files);
  if (!packet) return packet.error();
  auto out = make_capture_pipe();
  if (!out) return out.error();
  auto err = make_capture_pipe();
  if (!err) return err.error();
  UniqueFd input(request.stdin_fd >= 0 ? fcntl(request.stdin_fd, F_DUPFD_CLOEXEC, 3)
                                       : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!input.valid()) return system_error("opening the command's stdin");
  // Declared before the network, so that the interpreter continues only once the network is gone.
  struct ThawOnExit {
    NativeSession* session = nullptr;
    ~ThawOnExit() {
      if (session != nullptr) (void)session->ask(SessionRequestKind::kThaw, ChildMessageKind::kGo);
    }
  } thaw;
  UserNetwork network;
  bool via_proxy =
      request.network && !request.allowed_hosts.empty() && shape_.network == NetworkMode::kNone;
  // What the command may reach through the proxy; the session's own list again afterwards.
  net::egress::AllowList command_list, session_list;
  if (via_proxy) {
    if (!launched_->egress) {
      return invalid_input(
          "this session was opened without an egress proxy, so its installer "
          "cannot be limited to its package index");
    }
    auto command = allow_list(request.allowed_hosts);
    if (!command) return command.error();
    auto session = allow_list(shape_.allowed_hosts);
    if (!session) return session.error();
    command_list = std::move(*command);
    session_list = std::move(*session);
  }
  struct RestoreList {
    net::egress::EgressProxy* proxy = nullptr;
    net::egress::AllowList list;
    void now() {
      if (proxy != nullptr) std::exchange(proxy, nullptr)->set_allowlist(std::move(list));
    }
    ~RestoreList() { now(); }
  } restore;
  if (request.network) {
    if (!via_proxy && !launched_->namespaces) {
      return invalid_input("this session shares the host's network; no user-mode network to add");
    }
    // A live session's interpreter shares the sandbox's network namespace: it is stopped before
    // the network comes and continued after it is gone, so it never has one.
    auto stopped = ask(SessionRequestKind::kFreeze, ChildMessageKind::kFrozen);
    if (!stopped) return stopped.error();
    thaw.session = this;
    if (stopped->error != 0) {
      return Error{stopped->error,
                   "the session's interpreter could not be stopped for the install"};
    }
    if (via_proxy) {
      launched_->egress->set_allowlist(std::move(command_list));
      restore.proxy = launched_->egress.get();
      restore.list = std::move(session_list);
    } else {
      auto attached = UserNetwork::attach(*launched_->namespaces, shape_.host_loopback_ports);
      if (!attached) return attached.error();
      network = std::move(*attached);
    }
  }
  StartedSandbox& sandbox = launched_->sandbox;
  int fds[3] = {input.get(), request.stdout_to_stderr ? err->write_end.get() : out->write_end.get(),
                err->write_end.get()};
  sandbox.started_at = std::chrono::steady_clock::now();
  bool resumed = parked_.valid();
  if (resumed) {
    if (auto handed = send_to_parked(request, fds); !handed) return handed.error();
  } else if (int error = send_packet(sandbox.channel.get(), packet->get(),
                                     kSessionHeaderSize + (*packet)->length, fds, 3);
             error != 0) {
    if (error == EPIPE || error == ECONNRESET) {
      return Error{error, kEndedBeforeStart, ErrorKind::kSandboxGone};
    }
    return system_error("sending a command to the session", error);
  }
  input.reset();
  out->write_end.reset();
  err->write_end.reset();
  sandbox.stdout_pipe = std::move(out->read_end);
  sandbox.stderr_pipe = std::move(err->read_end);
  observer.on_started(sandbox.init.pid());

  Limits limits = limits_of(shape_.limits, base_);
  limits.wall_seconds = request.wall_seconds;
  limits.output_bytes = request.output_bytes;
  Supervised done = supervise(sandbox, limits, observer);
  if (resumed) {
    done.command_started = true;  // at park(): whatever ended it, the call's code had it
    // The CPU time of its start and preload is not the call's.
    std::int64_t cpu_us = done.usage.ru_utime.tv_sec * 1000000ll + done.usage.ru_utime.tv_usec;
    cpu_us = std::max<std::int64_t>(0, cpu_us - parked_cpu_us_);
    done.usage.ru_utime.tv_sec = cpu_us / 1000000;
    done.usage.ru_utime.tv_usec = cpu_us % 1000000;
  }
  if (done.init_exited && !done.command_started && !done.setup_failure && !done.timed_out &&
      !done.cancelled) {
    return Error{EPIPE, kEndedBeforeStart, ErrorKind::kSandboxGone};
  }
  network.detach();
  restore.now();
  net::egress::EgressRecord destinations;
  if (launched_->egress) destinations = launched_->egress->take_record();
  CollectedArtifacts collected;
  if (!request.collect.directories.empty()) {
    collected = collect_artifacts(workdir_.get(), request.collect);
  }
  CgroupOutcome cgroup{launched_->cgroup->directory(), host_cgroups().reason(), {}};
  if (!cgroup.directory.empty()) {
    cgroup.usage = host_cgroups().usage(cgroup.directory);
    // memory.events counts for the session's life: only a new OOM kill belongs to this command.
    bool oom_before = std::exchange(oom_seen_, cgroup.usage.oom_killed);
    cgroup.usage.oom_killed = cgroup.usage.oom_killed && !oom_before;
    // Likewise pids.events: only the refusals since the last command are this one's.
    std::uint64_t pids_before = std::exchange(pids_max_seen_, cgroup.usage.pids_max_events);
    cgroup.usage.pids_max_events -= std::min(pids_before, cgroup.usage.pids_max_events);
    cgroup.usage.cpu_usec.reset();
  }
  std::vector<std::vector<std::string>> command = {request.argv};
  auto result = to_run_result(shape_, base_, RunReported{command, limits}, *launched_->prepared,
                              launched_->ids, std::move(done), cgroup);
  if (result) {
    result->artifacts = std::move(collected.artifacts);
    result->omit_artifacts(std::move(collected.omitted));
    result->network = std::move(destinations);
  }
  return result;
}

Result<UniqueFd> NativeSession::open_inside(const std::string& path, SessionOpenMode mode,
                                            const std::string& target) {
  if (auto alive = check_alive(); !alive) return alive.error();
  auto packet = std::make_unique<SessionRequest>();
  packet->kind = SessionRequestKind::kOpen;
  packet->argc_or_mode = static_cast<std::int32_t>(mode);
  std::string data = path.empty() ? "." : path;
  data.push_back('\0');
  if (mode == SessionOpenMode::kMakeSymlink || mode == SessionOpenMode::kMakeHardLink) {
    data += target + '\0';
  }
  if (data.size() > kSessionDataMax) return Error{ENAMETOOLONG, "'" + path + "' is too long"};
  std::memcpy(packet->data, data.data(), data.size());
  packet->length = static_cast<std::uint32_t>(data.size());
  StartedSandbox& sandbox = launched_->sandbox;
  if (int error = send_packet(sandbox.channel.get(), packet.get(),
                              kSessionHeaderSize + packet->length, nullptr, 0);
      error != 0) {
    return system_error("asking the session for '" + path + "'", error);
  }
  UniqueFd passed;
  auto opened = await_reply(ChildMessageKind::kOpened, &passed);
  if (!opened) return opened.error();
  if (opened->error != 0) return session_path_error(path, opened->error);
  if (!passed.valid()) return Error{EIO, "the session sent no file for '" + path + "'"};
  return passed;
}

Result<UniqueFd> NativeSession::open_to_read(const std::string& path, std::uint64_t* size) {
  auto file = open_inside(path, SessionOpenMode::kRead);
  if (!file) return file.error();
  struct stat info {};
  if (fstat(file->get(), &info) != 0) return system_error("reading '" + path + "'");
  *size = static_cast<std::uint64_t>(info.st_size);
  return file;
}

Status NativeSession::write_file(const std::string& path, std::string_view content) {
  if (auto valid = check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto file = open_inside(path, SessionOpenMode::kWrite);
  if (!file) return file.error();
  int error = write_all(file->get(), content);
  if (error == ENOSPC || error == EDQUOT) {
    return Error{error, "writing '" + path + "': the session's work directory is full (" +
                            format_size(shape_.limits.work_bytes) + ", --session-disk)"};
  }
  if (error != 0) return system_error("writing '" + path + "'", error);
  return {};
}

Status NativeSession::copy_in(const std::string& path, int source_fd, std::uint64_t size,
                              bool executable) {
  if (auto valid = check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto file =
      open_inside(path, executable ? SessionOpenMode::kWriteExecutable : SessionOpenMode::kWrite);
  if (!file) return file.error();
  // Holes stay holes: a sparse file takes in the work directory what it took where it came from
  // (a kept session's, restored into a tmpfs of the size it was saved from).
  auto copied = copy_file_data(source_fd, file->get(), size);
  if (!copied && (copied.error().code == ENOSPC || copied.error().code == EDQUOT)) {
    return Error{ENOSPC, "copying into '" + path + "': the session's work directory is full (" +
                             format_size(shape_.limits.work_bytes) + ", --session-disk)"};
  }
  if (!copied) return copied.error().context("copying into '" + path + "'");
  return {};
}

Result<std::uint64_t> NativeSession::copy_out(const std::string& path, int sink_fd,
                                              std::uint64_t max_bytes,
                                              const CopyProgress& progress) {
  if (auto valid = check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  std::uint64_t size = 0;
  auto file = open_to_read(path, &size);
  if (!file) return file.error();
  if (size > max_bytes) return Error{EFBIG, "'" + path + "' is larger than the cap"};
  long long copied = copy_in_kernel(file->get(), sink_fd, size, progress);
  if (copied < 0) return system_error("copying '" + path + "' out", static_cast<int>(-copied));
  return static_cast<std::uint64_t>(copied);
}

Status NativeSession::make_directory(const std::string& path) {
  if (auto valid = check_session_path(path); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, SessionOpenMode::kMakeDirectory);
  return made ? Status{} : Status{made.error()};
}

Status NativeSession::make_symlink(const std::string& path, const std::string& target) {
  if (auto valid = check_session_path(path); !valid) return valid;
  if (target.empty() || target.find('\0') != std::string::npos || target.size() > 4096) {
    return invalid_input("the link '" + path + "' has no usable target");
  }
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, SessionOpenMode::kMakeSymlink, target);
  return made ? Status{} : Status{made.error()};
}

Status NativeSession::make_hard_link(const std::string& path, const std::string& existing) {
  if (auto valid = check_session_path(path); !valid) return valid;
  if (auto valid = check_session_path(existing); !valid) return valid;
  std::lock_guard lock(mutex_);
  auto made = open_inside(path, SessionOpenMode::kMakeHardLink, existing);
  return made ? Status{} : Status{made.error()};
}

Status NativeSession::walk_work_directory(const TreeVisitor& visit) {
  std::lock_guard lock(mutex_);
  if (auto alive = check_alive(); !alive) return alive;
  // What the sandbox user's mode bits keep from the server (a rootless server is not that user
  // when it has subordinate ids) is opened by init, as the sandbox user, beneath the work
  // directory.
  DeniedOpener denied = [this](const std::string& path, DeniedOpen how) {
    switch (how) {
      case DeniedOpen::kExamine:
        return open_inside(path, SessionOpenMode::kExamine);
      case DeniedOpen::kDirectory:
        return open_inside(path, SessionOpenMode::kDirectory);
      case DeniedOpen::kFile:
        break;
    }
    return open_inside(path, SessionOpenMode::kRead);
  };
  // Each folder level holds an fd while the walk is below it: a shallow cap keeps what one
  // session's nesting costs the server's fd budget small, with saves of several sessions at once.
  TreeWalkLimits limits;
  limits.max_depth = kWorkDirectoryDepth;
  return walk_tree(workdir_.get(), visit, denied, limits);
}

Result<FileContent> NativeSession::read_file(const std::string& path, std::uint64_t max_bytes,
                                             std::uint64_t offset) {
  if (auto valid = check_session_path(path); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  FileContent content;
  auto file = open_to_read(path, &content.size);
  if (!file) return file.error();
  std::uint64_t wanted = std::min(content.size - std::min(content.size, offset), max_bytes);
  content.data.resize(wanted);
  std::uint64_t got = 0;
  while (got < wanted) {
    ssize_t n = pread(file->get(), content.data.data() + got, wanted - got,
                      static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error("reading '" + path + "'");
    if (n == 0) break;  // the file shrank meanwhile
    got += static_cast<std::uint64_t>(n);
  }
  content.data.resize(got);
  return content;
}

Result<std::vector<FileEntry>> NativeSession::list_files(const std::string& path,
                                                         std::size_t max_entries) {
  if (auto valid = check_session_path(path, true); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  auto directory_fd = open_inside(path, SessionOpenMode::kDirectory);
  if (!directory_fd) return directory_fd.error();
  DIR* directory = fdopendir(directory_fd->release());
  if (directory == nullptr) return system_error("listing '" + path + "'");
  std::vector<FileEntry> entries;
  while (dirent* entry = readdir(directory)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat info {};
    FileEntry item{name, "other", 0};
    if (fstatat(dirfd(directory), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0) {
      item.type = file_type(info.st_mode);
      item.size = S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(info.st_size) : 0;
    }
    entries.push_back(std::move(item));
  }
  closedir(directory);
  std::sort(entries.begin(), entries.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.name < b.name; });
  if (entries.size() > max_entries) entries.resize(max_entries);
  return entries;
}

Result<SessionUsage> NativeSession::usage() {
  std::lock_guard lock(closing_mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  struct statfs work {};
  if (fstatfs(workdir_.get(), &work) != 0) return system_error("measuring the work directory");
  SessionUsage usage;
  usage.disk_bytes = static_cast<std::uint64_t>(work.f_blocks - work.f_bfree) *
                     static_cast<std::uint64_t>(work.f_frsize != 0 ? work.f_frsize : work.f_bsize);
  // init_pid_ is paddock-init's relay; below it, the sandbox's init is not the program's.
  std::uint32_t below_relay = count_descendants(init_pid_, read_process_parents());
  usage.processes = below_relay > 0 ? below_relay - 1 : 0;
  // Still alive, init was not reaped meanwhile: its number was not someone else's.
  if (auto alive = check_alive(); !alive) return alive.error();
  return usage;
}

void NativeSession::close() {
  // Kill first, without waiting for the lock: a command in flight ends with its sandbox.
  if (killer_.valid()) syscall(SYS_pidfd_send_signal, killer_.get(), SIGKILL, nullptr, 0);
  std::lock_guard lock(mutex_);
  std::lock_guard closing(closing_mutex_);
  if (!launched_) return;
  launched_->sandbox.init.kill_and_reap();
  launched_->network.detach();
  (void)finish_cgroup(*launched_);
  workdir_.reset();
  launched_.reset();
}

}  // namespace paddock
