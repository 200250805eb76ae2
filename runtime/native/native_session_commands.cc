// A session's commands: the request packet init runs one from, and the run, with its network
// for an install and its result.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "net/egress/proxy.h"
#include "runtime/native/artifacts.h"
#include "runtime/native/egress_plan.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/native_session.h"
#include "runtime/native/native_session_parts.h"
#include "runtime/native/run_report.h"

namespace paddock::native {

using namespace native_session_parts;

namespace {

// The CPU time of a parked interpreter's start and preload is not the call's.
void discount_parked_start(Supervised& done, std::int64_t parked_cpu_us) {
  done.command_started = true;  // at park(): whatever ended it, the call's code had it
  std::int64_t cpu_us = done.usage.ru_utime.tv_sec * 1000000ll + done.usage.ru_utime.tv_usec;
  cpu_us = std::max<std::int64_t>(0, cpu_us - parked_cpu_us);
  done.usage.ru_utime.tv_sec = cpu_us / 1000000;
  done.usage.ru_utime.tv_usec = cpu_us % 1000000;
}

}  // namespace

core::Result<std::unique_ptr<init::SessionRequest>> NativeSession::command_packet(
    init::SessionRequestKind kind, const runtime::ExecRequest& request,
    const std::vector<runtime::SandboxFile>& files) const {
  if (request.argv.empty() || request.argv[0].empty())
    return core::invalid_input("no command given");
  auto packet = std::make_unique<init::SessionRequest>();
  packet->kind = kind;
  packet->argc_or_mode = static_cast<std::int32_t>(request.argv.size());
  for (const auto& file : files) {
    if (auto valid = runtime::check_session_path(file.path); !valid) return valid.error();
    auto size = static_cast<std::uint32_t>(file.content.size());
    std::size_t needed = sizeof size + file.path.size() + 1 + file.content.size();
    if (packet->length + needed > init::kSessionDataMax) {
      return core::Error{E2BIG, "the command's files are longer than 64 KiB"};
    }
    char* at = packet->data + packet->length;
    std::memcpy(at, &size, sizeof size);
    std::memcpy(at + sizeof size, file.path.c_str(), file.path.size() + 1);
    std::memcpy(at + sizeof size + file.path.size() + 1, file.content.data(), file.content.size());
    packet->length += static_cast<std::uint32_t>(needed);
  }
  packet->files_length = packet->length;
  if (kind == init::SessionRequestKind::kExec && request.network)
    packet->flags = init::kSessionOwnProcessDomain;
  std::vector<std::string> strings = request.argv;
  for (auto& entry : command_env(request)) {
    strings.push_back(std::move(entry));
  }
  for (const auto& text : strings) {
    if (text.find('\0') != std::string::npos) {
      return core::invalid_input("an argument or environment entry contains a NUL byte");
    }
    if (packet->length + text.size() + 1 > init::kSessionDataMax) {
      std::string what = "the command and its environment are longer than 64 KiB";
      // With files, they may be what leaves no room (exec_with_files then sends them apart).
      return files.empty() ? core::invalid_input(what) : core::Error{E2BIG, what};
    }
    std::memcpy(packet->data + packet->length, text.c_str(), text.size() + 1);
    packet->length += static_cast<std::uint32_t>(text.size() + 1);
  }
  return packet;
}

std::vector<std::string> NativeSession::command_env(const runtime::ExecRequest& request) const {
  std::vector<std::string> env = runtime::merge_env(launched_->prepared->env_storage, request.env);
  // A program's way out is the proxy whatever its environment says, as in a one-off run (where
  // the proxy's variables come last); an installer's command brings its own.
  if ((!shape_.allowed_hosts.empty() || shape_.ask_network) && !request.network)
    env = runtime::merge_env(env, net::egress::proxy_env(true, launched_->localhost_proxied));
  // The sandbox's placeholders stand whatever a request sets: a variable set to something else
  // would only send that in their place.
  return runtime::merge_env(env, launched_->brokered_env);
}

void NativeSession::set_consent(std::shared_ptr<net::egress::HostConsent> consent) {
  // Not mutex_ (a call sets it around its command); closing_mutex_, as close() resets launched_.
  std::lock_guard lock(closing_mutex_);
  if (launched_ && launched_->egress) launched_->egress->set_consent(std::move(consent));
}

net::egress::EgressRecord NativeSession::take_network_record() {
  std::lock_guard lock(mutex_);
  return launched_ && launched_->egress ? launched_->egress->take_record()
                                        : net::egress::EgressRecord{};
}

core::Result<runtime::RunResult> NativeSession::exec(const runtime::ExecRequest& request,
                                                     runtime::RunObserver& observer) {
  return exec_command(request, {}, observer);
}

core::Result<runtime::RunResult> NativeSession::exec_with_files(
    const std::vector<runtime::SandboxFile>& files, const runtime::ExecRequest& request,
    runtime::RunObserver& observer) {
  // A warm interpreter takes its call's files apart: it already runs, so they cannot come with
  // its command.
  if (parked_.valid()) {
    for (const auto& file : files) {
      if (auto wrote = write_file(file.path, file.content); !wrote) {
        // Gone before its interpreter was handed the call: nothing of it ran.
        int code = wrote.error().code;
        if (code == EPIPE || code == ECONNRESET || ended()) {
          return core::Error{EPIPE, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
        }
        return wrote.error();
      }
    }
    return exec_command(request, {}, observer);
  }
  auto result = exec_command(request, files, observer);
  // Too much for one packet: the files go one by one (kOpen), then the command.
  if (!result && result.error().code == E2BIG && !files.empty()) {
    return runtime::Session::exec_with_files(files, request, observer);
  }
  return result;
}

// Its members go in reverse order: the proxy's session allowlist back first, then the user-mode
// network, and the interpreter continued last, only once the network is gone.
struct NativeSession::LentNetwork {
  struct ThawOnExit {
    NativeSession* session = nullptr;
    ~ThawOnExit() {
      if (session != nullptr)
        (void)session->ask(init::SessionRequestKind::kThaw, init::ChildMessageKind::kGo);
    }
  } thaw;
  UserNetwork network;
  struct RestoreList {
    net::egress::EgressProxy* proxy = nullptr;
    net::egress::AllowList list;
    void now() {
      if (proxy != nullptr) std::exchange(proxy, nullptr)->set_allowlist(std::move(list));
    }
    ~RestoreList() { now(); }
  } restore;
};

core::Status NativeSession::lend_network(const runtime::ExecRequest& request, LentNetwork& lent) {
  bool via_proxy = request.network && !request.allowed_hosts.empty() &&
                   shape_.network == runtime::NetworkMode::kNone;
  // What the command may reach through the proxy; the session's own list again afterwards.
  net::egress::AllowList command_list, session_list;
  if (via_proxy) {
    if (!launched_->egress) {
      return core::invalid_input(
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
  if (request.network) {
    if (!via_proxy && !launched_->namespaces) {
      return core::invalid_input(
          "this session shares the host's network; no user-mode network to add");
    }
    // A live session's interpreter shares the sandbox's network namespace: it is stopped before
    // the network comes and continued after it is gone, so it never has one.
    auto stopped = ask(init::SessionRequestKind::kFreeze, init::ChildMessageKind::kFrozen);
    if (!stopped) return stopped.error();
    lent.thaw.session = this;
    if (stopped->error != 0) {
      return core::Error{stopped->error,
                         "the session's interpreter could not be stopped for the install"};
    }
    if (via_proxy) {
      launched_->egress->set_allowlist(std::move(command_list), /*installer=*/true);
      lent.restore.proxy = launched_->egress.get();
      lent.restore.list = std::move(session_list);
    } else {
      auto attached = UserNetwork::attach(*launched_->namespaces, shape_.host_loopback_ports);
      if (!attached) return attached.error();
      lent.network = std::move(*attached);
    }
  }
  return {};
}

CgroupOutcome NativeSession::command_cgroup() {
  CgroupOutcome cgroup{launched_->cgroup->directory(), cgroup::host_cgroups().reason(), {}};
  if (!cgroup.directory.empty()) {
    cgroup.usage = cgroup::host_cgroups().usage(cgroup.directory);
    // memory.events counts for the session's life: only a new OOM kill belongs to this command.
    bool oom_before = std::exchange(oom_seen_, cgroup.usage.oom_killed);
    cgroup.usage.oom_killed = cgroup.usage.oom_killed && !oom_before;
    // Likewise pids.events: only the refusals since the last command are this one's.
    std::uint64_t pids_before = std::exchange(pids_max_seen_, cgroup.usage.pids_max_events);
    cgroup.usage.pids_max_events -= std::min(pids_before, cgroup.usage.pids_max_events);
    cgroup.usage.cpu_usec.reset();
  }
  return cgroup;
}

core::Result<runtime::RunResult> NativeSession::exec_command(
    const runtime::ExecRequest& request, const std::vector<runtime::SandboxFile>& files,
    runtime::RunObserver& observer) {
  std::lock_guard lock(mutex_);
  // A sandbox gone before its init took the command (killed from outside) ran nothing of it:
  // kSandboxGone, which tells a warm run it may run cold instead.
  if (auto alive = check_alive(); !alive) {
    return core::Error{alive.error().code, alive.error().message, core::ErrorKind::kSandboxGone};
  }
  auto packet = command_packet(init::SessionRequestKind::kExec, request, files);
  if (!packet) return packet.error();
  auto out = make_capture_pipe();
  if (!out) return out.error();
  auto err = make_capture_pipe();
  if (!err) return err.error();
  core::UniqueFd input(request.stdin_fd >= 0 ? fcntl(request.stdin_fd, F_DUPFD_CLOEXEC, 3)
                                             : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!input.valid()) return core::system_error("opening the command's stdin");
  LentNetwork lent;
  if (auto given = lend_network(request, lent); !given) return given.error();
  StartedSandbox& sandbox = launched_->sandbox;
  int fds[3] = {input.get(), request.stdout_to_stderr ? err->write_end.get() : out->write_end.get(),
                err->write_end.get()};
  sandbox.started_at = std::chrono::steady_clock::now();
  bool resumed = parked_.valid();
  if (resumed) {
    if (auto handed = send_to_parked(request, fds); !handed) return handed.error();
  } else if (int error = init::send_packet(sandbox.channel.get(), packet->get(),
                                           init::kSessionHeaderSize + (*packet)->length, fds, 3);
             error != 0) {
    if (error == EPIPE || error == ECONNRESET) {
      return core::Error{error, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
    }
    return core::system_error("sending a command to the session", error);
  }
  input.reset();
  out->write_end.reset();
  err->write_end.reset();
  // An interpreter whose streams were made at its start writes to those.
  bool streams_made = resumed && parked_stdout_.valid();
  sandbox.stdout_pipe = std::move(streams_made ? parked_stdout_ : out->read_end);
  sandbox.stderr_pipe = std::move(streams_made ? parked_stderr_ : err->read_end);
  observer.on_started(sandbox.init.pid());

  runtime::Limits limits = runtime::limits_of(shape_.limits, base_);
  limits.wall_seconds = request.wall_seconds;
  limits.output_bytes = request.output_bytes;
  Supervised done = supervise(sandbox, limits, observer);
  if (resumed) discount_parked_start(done, parked_cpu_us_);
  if (done.init_exited && !done.command_started && !done.setup_failure && !done.timed_out &&
      !done.cancelled) {
    return core::Error{EPIPE, kEndedBeforeStart, core::ErrorKind::kSandboxGone};
  }
  lent.network.detach();
  lent.restore.now();
  net::egress::EgressRecord destinations;
  if (launched_->egress) destinations = launched_->egress->take_record();
  CollectedArtifacts collected;
  if (!request.collect.directories.empty()) {
    collected = collect_artifacts(workdir_.get(), request.collect);
  }
  CgroupOutcome cgroup = command_cgroup();
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

}  // namespace paddock::native
