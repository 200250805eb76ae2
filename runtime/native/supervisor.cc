#include "runtime/native/supervisor.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "runtime/native/init/session_channel.h"
#include "runtime/output_capture.h"
#include "runtime/wall_timer.h"

namespace paddock::native {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

int send_kill(const StartedSandbox& sandbox) {
  if (sandbox.session) {
    return init::send_session_request(sandbox.channel.get(), init::SessionRequestKind::kKill);
  }
  return sandbox.init.kill();
}

// Whether the sandbox still owes us something: its init's exit, or in a session the command's.
bool running(const StartedSandbox& sandbox, const Supervised& state, bool init_running) {
  if (!sandbox.session) return init_running;
  bool spawn_failed =
      state.setup_failure && (state.setup_failure->phase == init::SetupPhase::kSpawnPayload ||
                              state.setup_failure->phase == init::SetupPhase::kCommandFile);
  return init_running && !state.payload_status && !spawn_failed;
}

// Reads what is available; returns false at EOF.
bool drain(core::UniqueFd& pipe, runtime::CapturedOutput& output, std::uint64_t cap,
           runtime::StreamId stream, runtime::RunObserver& observer) {
  std::array<char, kReadChunk> buffer;
  ssize_t got = read(pipe.get(), buffer.data(), buffer.size());
  if (got < 0) return errno == EINTR || errno == EAGAIN;
  if (got == 0) return false;
  std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
  runtime::capture_chunk(output, chunk, cap);
  observer.on_output(stream, chunk);  // every byte: only what is kept is capped
  return true;
}

void read_message(StartedSandbox& sandbox, Supervised& state) {
  core::UniqueFd& channel = sandbox.channel;
  init::ChannelPacket packet;
  ssize_t got = recvmsg(channel.get(), &packet.header, MSG_CMSG_CLOEXEC);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
  core::UniqueFd passed(packet.received_fd());
  const init::ChildMessage& message = packet.message;
  if (got != sizeof message) {
    channel.reset();  // EOF: init and payload are gone or exec'd
    return;
  }
  switch (message.kind) {
    case init::ChildMessageKind::kSetupFailed:
    case init::ChildMessageKind::kExecFailed:
      if (!state.setup_failure) state.setup_failure = message;
      break;
    case init::ChildMessageKind::kPayloadExited:
      state.payload_status = message.status;
      state.payload_step = message.step;
      state.refused = message.refused;
      state.usage.ru_utime.tv_sec = message.cpu_us / 1000000;
      state.usage.ru_utime.tv_usec = message.cpu_us % 1000000;
      break;
    case init::ChildMessageKind::kWorkdir:
      state.workdir = std::move(passed);
      break;
    case init::ChildMessageKind::kProxyListener:
      if (sandbox.egress != nullptr) sandbox.egress->serve(std::move(passed));
      break;
    case init::ChildMessageKind::kCommandStarted:
      state.command_started = true;
      break;
    case init::ChildMessageKind::kStepBoundary:
      state.at_step_boundary = true;
      state.payload_step = message.step;  // the step that starts next
      break;
    case init::ChildMessageKind::kGo:
    case init::ChildMessageKind::kOpened:
    case init::ChildMessageKind::kResidentStarted:
    case init::ChildMessageKind::kResidentExited:
    case init::ChildMessageKind::kSwept:
    case init::ChildMessageKind::kFrozen:
    case init::ChildMessageKind::kNetworkMade:      // init's alone
    case init::ChildMessageKind::kSeccompListener:  // the relay's alone
    case init::ChildMessageKind::kSocketFactory:    // a session's, taken before any command
      break;
  }
}

}  // namespace

Supervised supervise(StartedSandbox& sandbox, const runtime::Limits& limits,
                     runtime::RunObserver& observer) {
  Supervised state;
  const auto deadline = runtime::deadline_after(limits.wall_seconds, sandbox.started_at);
  const runtime::CancellationToken* cancellation = observer.cancellation();
  bool init_running = true;
  bool killed = false;

  while (running(sandbox, state, init_running) || sandbox.stdout_pipe.valid() ||
         sandbox.stderr_pipe.valid()) {
    std::array<pollfd, 5> fds{};
    std::size_t count = 0;
    auto watch = [&](int fd) {
      if (fd >= 0) fds[count++] = pollfd{fd, POLLIN, 0};
    };
    watch(sandbox.stdout_pipe.get());
    watch(sandbox.stderr_pipe.get());
    watch(sandbox.channel.get());
    if (init_running) watch(sandbox.init.pidfd());
    if (sandbox.session && !init_running && count == 0) break;
    if (cancellation != nullptr && !killed) watch(cancellation->poll_fd());

    int ready = poll(fds.data(), count, killed ? -1 : runtime::poll_ms_until(deadline));
    if (ready < 0 && errno != EINTR) break;

    if (!killed && runtime::WallClock::now() >= deadline && !state.payload_status) {
      state.timed_out = true;
      send_kill(sandbox);
      killed = true;
    }
    for (std::size_t i = 0; i < count && ready > 0; ++i) {
      if (fds[i].revents == 0) continue;
      int fd = fds[i].fd;
      if (fd == sandbox.stdout_pipe.get()) {
        if (!drain(sandbox.stdout_pipe, state.stdout_data, limits.output_bytes,
                   runtime::StreamId::kStdout, observer)) {
          sandbox.stdout_pipe.reset();
        }
      } else if (fd == sandbox.stderr_pipe.get()) {
        if (!drain(sandbox.stderr_pipe, state.stderr_data, limits.output_bytes,
                   runtime::StreamId::kStderr, observer)) {
          sandbox.stderr_pipe.reset();
        }
      } else if (fd == sandbox.channel.get()) {
        read_message(sandbox, state);
        if (state.at_step_boundary) {
          state.at_step_boundary = false;
          if (sandbox.at_step_boundary) sandbox.at_step_boundary();
          init::ChildMessage go{init::ChildMessageKind::kGo};
          [[maybe_unused]] ssize_t sent = write(sandbox.channel.get(), &go, sizeof go);
        }
      } else if (fd == sandbox.init.pidfd()) {
        init_running = false;
      } else if (cancellation != nullptr && fd == cancellation->poll_fd() && !killed) {
        state.cancelled = true;
        send_kill(sandbox);
        killed = true;
      }
    }
  }
  state.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - sandbox.started_at)
                          .count();
  if (sandbox.session && init_running) return state;
  state.init_exited = true;
  // Messages sent just before init exited may still be queued.
  while (sandbox.channel.valid()) {
    pollfd entry{sandbox.channel.get(), POLLIN, 0};
    if (poll(&entry, 1, 0) != 1) break;
    read_message(sandbox, state);
  }
  state.init_status = sandbox.init.wait(sandbox.session ? nullptr : &state.usage);
  return state;
}

}  // namespace paddock::native
