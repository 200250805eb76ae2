#include "runtime/native/native_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

#include "runtime/native/image_root_fallback.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/native_session_parts.h"
#include "runtime/native/process_tree.h"
#include "runtime/native/run_report.h"

namespace paddock {
namespace {

constexpr int kReplyTimeoutMs = 30'000;

class QuietObserver final : public RunObserver {};

}  // namespace

namespace native_session_parts {

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

}  // namespace native_session_parts

using namespace native_session_parts;

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

Status NativeSession::sweep() {
  std::lock_guard lock(mutex_);
  auto swept = ask(SessionRequestKind::kSweep, ChildMessageKind::kSwept);
  if (!swept) return swept.error();
  if (swept->error != 0) return system_error("clearing the session's processes", swept->error);
  return {};
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
