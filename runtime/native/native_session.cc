#include "runtime/native/native_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

#include "net/preview/listening.h"
#include "runtime/native/image_root_fallback.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/native_session_parts.h"
#include "runtime/native/process_memory.h"
#include "runtime/native/process_tree.h"
#include "runtime/native/run_report.h"

namespace paddock::native {
namespace {

constexpr int kReplyTimeoutMs = 30'000;

class QuietObserver final : public runtime::RunObserver {};

}  // namespace

namespace native_session_parts {

core::Result<init::ChildMessage> receive_message(StartedSandbox& sandbox, core::UniqueFd* passed) {
  pollfd watched[2] = {{sandbox.channel.get(), POLLIN, 0}, {sandbox.init.pidfd(), POLLIN, 0}};
  int ready;
  while ((ready = poll(watched, 2, kReplyTimeoutMs)) < 0 && errno == EINTR) {
  }
  if (ready == 0) return core::Error{ETIMEDOUT, "the session's sandbox did not answer within 30 s"};
  if ((watched[0].revents & POLLIN) != 0) {
    init::ChannelPacket packet;
    ssize_t got = recvmsg(sandbox.channel.get(), &packet.header, MSG_CMSG_CLOEXEC);
    passed->reset(packet.received_fd());
    if (got == sizeof(init::ChildMessage)) return packet.message;
  }
  return core::Error{EPIPE, "the session's sandbox has ended; open a new session"};
}

}  // namespace native_session_parts

using namespace native_session_parts;

core::Result<std::unique_ptr<runtime::Session>> NativeSession::open(
    const runtime::SandboxShape& shape, const runtime::RunPlan& base,
    const net::egress::SecretBroker& broker) {
  return with_image_root_fallback<std::unique_ptr<runtime::Session>>(
      shape, [&base, &broker](const runtime::SandboxShape& attempt, bool& refused) {
        return open_once(attempt, base, broker, refused);
      });
}

core::Result<std::unique_ptr<runtime::Session>> NativeSession::open_once(
    const runtime::SandboxShape& shape, const runtime::RunPlan& base,
    const net::egress::SecretBroker& broker, bool& refused) {
  QuietObserver observer;
  auto launched = launch_sandbox(shape, base, observer, LaunchMode::kSession, broker);
  if (!launched) return launched.error();
  std::unique_ptr<NativeSession> session(new NativeSession(shape, base, std::move(*launched)));
  session->launched_->sandbox.session = true;
  session->init_pid_ = session->launched_->sandbox.init.pid();
  session->killer_.reset(fcntl(session->launched_->sandbox.init.pidfd(), F_DUPFD_CLOEXEC, 3));
  if (auto ready = session->wait_until_ready(refused); !ready) return ready.error();
  return std::unique_ptr<runtime::Session>(std::move(session));
}

core::Status NativeSession::wait_until_ready(bool& refused) {
  for (;;) {
    core::UniqueFd passed;
    auto message = receive_message(launched_->sandbox, &passed);
    if (!message) return message.error().context("starting the session");
    if (message->kind == init::ChildMessageKind::kWorkdir) {
      workdir_ = std::move(passed);
      return {};
    }
    if (message->kind == init::ChildMessageKind::kSocketFactory)
      preview_factory_ = std::move(passed);
    if (message->kind == init::ChildMessageKind::kProxyListener && launched_->egress) {
      launched_->egress->serve(std::move(passed));
    }
    if (message->kind == init::ChildMessageKind::kSetupFailed) {
      refused = overlay_refused(shape_, *launched_->prepared, *message);
      Supervised failed;
      failed.setup_failure = *message;
      const std::vector<std::vector<std::string>> no_command;
      auto described = to_run_result(
          shape_, base_, RunReported{no_command, runtime::limits_of(shape_.limits, base_)},
          *launched_->prepared, launched_->ids, std::move(failed), {});
      return described ? core::Error{EIO, "sandbox setup failed"} : described.error();
    }
  }
}

core::Result<core::UniqueFd> NativeSession::take_preview_factory() {
  // Not mutex_: a preview opens while a command runs (a server the command started).
  std::lock_guard lock(closing_mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  if (shape_.network == runtime::NetworkMode::kHost) {
    return core::Error{
        ENOTSUP,
        "this session's sandbox shares the host's network: its ports are the host's, "
        "and paddock previews none of them"};
  }
  if (!preview_factory_.valid()) {
    return core::Error{ENOTSUP, "this session's preview sockets are taken or were never made"};
  }
  return std::move(preview_factory_);
}

core::Result<bool> NativeSession::listening(std::uint16_t port) {
  std::lock_guard lock(closing_mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  auto listens = net::preview::listens_on_loopback(launched_->sandbox.init.pid(), port);
  // The pid names init only while init lives: a table read after it ended may be another
  // process's.
  if (auto alive = check_alive(); !alive) return alive.error();
  return listens;
}

core::Status NativeSession::check_alive() const {
  if (!launched_) return core::Error{EPIPE, "the session is closed"};
  pollfd init{launched_->sandbox.init.pidfd(), POLLIN, 0};
  if (poll(&init, 1, 0) == 1) return core::Error{EPIPE, kEndedBeforeStart};
  return {};
}

core::Result<init::ChildMessage> NativeSession::await_reply(init::ChildMessageKind reply,
                                                            core::UniqueFd* passed) {
  for (;;) {
    passed->reset();
    auto message = receive_message(launched_->sandbox, passed);
    if (!message || message->kind == reply) return message;
  }
}

core::Result<init::ChildMessage> NativeSession::ask(init::SessionRequestKind kind,
                                                    init::ChildMessageKind reply) {
  if (auto alive = check_alive(); !alive) return alive.error();
  if (int error = init::send_session_request(launched_->sandbox.channel.get(), kind); error != 0) {
    return core::system_error("asking the session's init", error);
  }
  if (reply == init::ChildMessageKind::kGo) return init::ChildMessage{};
  core::UniqueFd passed;
  return await_reply(reply, &passed);
}

core::Status NativeSession::sweep() {
  std::lock_guard lock(mutex_);
  auto swept = ask(init::SessionRequestKind::kSweep, init::ChildMessageKind::kSwept);
  if (!swept) return swept.error();
  if (swept->error != 0)
    return core::system_error("clearing the session's processes", swept->error);
  return {};
}

core::Result<runtime::SessionUsage> NativeSession::usage() {
  std::lock_guard lock(closing_mutex_);
  if (auto alive = check_alive(); !alive) return alive.error();
  struct statfs work {};
  if (fstatfs(workdir_.get(), &work) != 0)
    return core::system_error("measuring the work directory");
  runtime::SessionUsage usage;
  usage.disk_bytes = static_cast<std::uint64_t>(work.f_blocks - work.f_bfree) *
                     static_cast<std::uint64_t>(work.f_frsize != 0 ? work.f_frsize : work.f_bsize);
  // init_pid_ is paddock-init's relay; below it, the sandbox's init is not the program's.
  std::vector<pid_t> below_relay = descendants(init_pid_, read_process_parents());
  usage.processes = below_relay.empty() ? 0 : static_cast<std::uint32_t>(below_relay.size() - 1);
  below_relay.push_back(init_pid_);
  usage.memory_bytes = proportional_set_size(below_relay);
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

}  // namespace paddock::native
