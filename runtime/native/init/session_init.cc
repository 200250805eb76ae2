// A session's init: after the usual setup it stays, runs one command at a time for the parent,
// and opens files of the work directory for it. Same rules as the rest of the child: no
// allocation, no locks, replies as fixed-size ChildMessages.
//
// It runs commands, not steps: which command comes next, and whether a failed one ends a call,
// is decided on the host by the one step runner (runtime/step_runner.h), which sends each step
// here as a command. Only a one-off run's init runs a plan's steps itself (child.cc).
//
// init runs as the sandbox user with no capabilities, so every file it opens for the parent is
// subject to the sandbox's own permissions; each open is confined beneath the work directory.

#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/beneath.h"
#include "core/write_all.h"
#include "net/preview/socket_request.h"
#include "runtime/native/init/child.h"
#include "runtime/native/init/child_parts.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/init/session_sweep.h"

namespace paddock::init {
namespace {

constexpr int kMaxStrings = 4096;

// Static, not on the stack: init's stack is a copy of the parent's and may be small.
SessionRequest request;
char* argv_slots[kMaxStrings + 1];
char* env_slots[kMaxStrings + 1];

using child_parts::kResolve;

// The fd for a kOpen request, or -errno. Only regular files and directories are handed out: a
// FIFO or a device could block or mislead paddock.
int open_requested(int work, SessionOpenMode mode, char* path, char* target) {
  bool directory = mode == SessionOpenMode::kDirectory || mode == SessionOpenMode::kMakeDirectory ||
                   mode == SessionOpenMode::kMakeSymlink;
  // An O_PATH fd reads and writes nothing, so any kind of entry may go back.
  if (mode == SessionOpenMode::kExamine) {
    return core::open_beneath(work, path, O_PATH | O_NOFOLLOW, kResolve | RESOLVE_NO_SYMLINKS);
  }
  int fd;
  switch (mode) {
    case SessionOpenMode::kRead:
      fd = core::open_beneath(work, path, O_RDONLY | O_NONBLOCK, kResolve);
      break;
    case SessionOpenMode::kWrite:
    case SessionOpenMode::kWriteExecutable:
      fd = open_for_write(work, path, mode == SessionOpenMode::kWrite ? 0644 : 0755);
      break;
    case SessionOpenMode::kDirectory:
      fd = core::open_beneath(work, path, O_RDONLY | O_DIRECTORY, kResolve);
      break;
    case SessionOpenMode::kMakeDirectory:
      fd = make_directories(work, path);
      break;
    case SessionOpenMode::kMakeSymlink:
      if (target == nullptr) return -EINVAL;
      fd = make_symlink(work, path, target);
      break;
    case SessionOpenMode::kMakeHardLink:
      if (target == nullptr) return -EINVAL;
      fd = make_hard_link(work, path, target);
      break;
    default:
      return -EINVAL;
  }
  if (fd < 0) return fd;
  struct stat info {};
  bool wanted_type =
      fstat(fd, &info) == 0 && (directory ? S_ISDIR(info.st_mode) : S_ISREG(info.st_mode));
  if (!wanted_type) {
    close(fd);
    return directory ? -ENOTDIR : -EINVAL;
  }
  return fd;
}

void reply_opened(int channel, int fd_or_error) {
  ChannelPacket packet;
  packet.message = ChildMessage{
      ChildMessageKind::kOpened, SetupPhase::kExec, 0, fd_or_error < 0 ? -fd_or_error : 0, 0, 0};
  if (fd_or_error >= 0) {
    packet.attach_fd(fd_or_error);
  } else {
    packet.header.msg_control = nullptr;
    packet.header.msg_controllen = 0;
  }
  while (sendmsg(channel, &packet.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  if (fd_or_error >= 0) close(fd_or_error);
}

// Splits request.data after its files into argv and env; false if the request is malformed.
bool parse_command(std::uint32_t length, int argc) {
  std::uint32_t from = request.files_length;
  if (length <= from || request.data[length - 1] != '\0' || argc < 1) return false;
  int strings = 0, envc = 0;
  for (std::uint32_t at = from; at < length;
       at += static_cast<std::uint32_t>(std::strlen(request.data + at) + 1)) {
    if (strings >= 2 * kMaxStrings) return false;
    if (strings < argc) {
      if (strings >= kMaxStrings) return false;
      argv_slots[strings] = request.data + at;
    } else {
      if (envc >= kMaxStrings) return false;
      env_slots[envc++] = request.data + at;
    }
    ++strings;
  }
  if (strings < argc) return false;
  argv_slots[argc] = nullptr;
  env_slots[envc] = nullptr;
  return true;
}

// Init's end of the preview socket factory, or -1 (send_socket_factory).
int socket_factory = -1;

// Answers one request of the factory with a new TCP socket of this network namespace, or why
// not. Whatever paddock then connects it to is inside the sandbox: a socket's namespace is
// the one it was made in. False when paddock has closed its end.
bool serve_socket_request() {
  char request_byte = 0;
  ssize_t got = recv(socket_factory, &request_byte, sizeof request_byte, MSG_DONTWAIT);
  if (got < 0) return errno == EAGAIN || errno == EINTR;
  if (got == 0) return false;
  net::preview::PreviewSocketAnswer answer;
  int fd = -1;
  if (request_byte != net::preview::kPreviewSocketRequest) {
    answer.error = EINVAL;
  } else {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) answer.error = errno;
  }
  send_packet(socket_factory, &answer, sizeof answer, fd >= 0 ? &fd : nullptr, fd >= 0 ? 1 : 0);
  if (fd >= 0) close(fd);
  return true;
}

// The live session's resident process (the kernel bridge), 0 when there is none.
pid_t resident = 0;

// Kills every process of the sandbox but init itself and the resident with its children; the
// command's end is reaped and reported by the loop.
void kill_all(pid_t command) {
  sweep_all_but_resident(resident, command);
}

// After a command: nothing it started outlives it, so the next command starts from a clean
// process table and the caller sees end of file on its output. Without a resident, init waits
// for every one of its children; with one, it reaps what is dead and leaves the resident be.
void clear_after_command(int channel) {
  if (resident == 0) {
    kill_and_reap_all();
    return;
  }
  sweep_all_but_resident(resident);
  int status = 0;
  for (pid_t pid; (pid = wait4(-1, &status, WNOHANG | __WALL, nullptr)) > 0;) {
    if (pid != resident) continue;
    resident = 0;
    send(channel,
         ChildMessage{ChildMessageKind::kResidentExited, SetupPhase::kExec, 0, 0, status, 0});
  }
}

// Starts a command with the request's argv, env and fds; its PID, or -errno. `failure`: see
// PayloadCommand (why a resident could not start is the answer to its start, not a later
// message).
pid_t start_command(const ChildPlan& plan, std::uint32_t length, const int* fds, int fd_count,
                    PayloadFailure* failure = nullptr) {
  if (fd_count < 3 || fd_count > 5 || !parse_command(length, request.argc_or_mode)) {
    return -EINVAL;
  }
  // Only init knows whether a resident (a live interpreter, with the secrets in its memory)
  // runs beside the command: then a command that must not see it fails rather than run beside
  // it unconfined.
  ProcessDomain domain = ProcessDomain::kShared;
  if ((request.flags & kSessionOwnProcessDomain) != 0) {
    domain = resident != 0 ? ProcessDomain::kOwn : ProcessDomain::kOwnWherePossible;
  }
  return spawn_payload(
      plan,
      PayloadCommand{argv_slots, env_slots, fds[0], fds[1], fds[2], fd_count >= 4 ? fds[3] : -1,
                     fd_count == 5 ? fds[4] : -1, request.step, domain, failure});
}

}  // namespace

// kExec's files (SessionRequest::files_length), written as the sandbox user, confined beneath
// the work directory as kOpen's are, before the command starts. 0, or -errno with *failed the
// index of the file that could not be written.
static int write_command_files(int work, std::uint32_t length, int* failed) {
  std::uint32_t end = request.files_length;
  if (end > length) return -EINVAL;
  *failed = 0;
  for (std::uint32_t at = 0; at < end; ++*failed) {
    std::uint32_t size = 0;
    if (end - at < sizeof size) return -EINVAL;
    std::memcpy(&size, request.data + at, sizeof size);
    at += sizeof size;
    char* path = request.data + at;
    if (std::memchr(path, '\0', end - at) == nullptr) return -EINVAL;
    at += static_cast<std::uint32_t>(std::strlen(path) + 1);
    if (size > end - at) return -EINVAL;
    const char* bytes = request.data + at;
    at += size;
    int fd = open_for_write(work, path, 0644);  // rewrites the path's slashes: read it no more
    if (fd < 0) return fd;
    int error = core::write_all(fd, std::string_view(bytes, size));
    close(fd);
    if (error != 0) return -error;
  }
  return 0;
}

void send_socket_factory(int channel) {
  int pair[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return;
  ChannelPacket packet;
  packet.message =
      ChildMessage{ChildMessageKind::kSocketFactory, SetupPhase::kLoopback, 0, 0, 0, 0};
  packet.attach_fd(pair[1]);
  while (sendmsg(channel, &packet.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  close(pair[1]);
  socket_factory = pair[0];
}

namespace {

// Served between commands and while one runs alike: a preview's connection never waits for a
// call to end. A bounded batch, so that paddock's requests are never starved.
void serve_previews() {
  for (int served = 0; served < 64; ++served) {
    if (!serve_socket_request()) {
      close(socket_factory);
      socket_factory = -1;
      break;
    }
    pollfd more{socket_factory, POLLIN, 0};
    if (poll(&more, 1, 0) != 1) break;
  }
}

// Reaps every child that ended: the resident's end and the command's exit status go to paddock.
void reap_children(int channel, int reaper, pid_t& payload, std::int32_t step) {
  signalfd_siginfo info;
  while (read(reaper, &info, sizeof info) > 0) {
  }
  int status = 0;
  rusage usage{};
  for (pid_t pid; (pid = wait4(-1, &status, WNOHANG | __WALL, &usage)) > 0;) {
    if (pid == resident) {
      resident = 0;
      send(channel,
           ChildMessage{ChildMessageKind::kResidentExited, SetupPhase::kExec, 0, 0, status, 0});
      continue;
    }
    if (pid != payload) continue;
    payload = 0;
    clear_after_command(channel);
    ChildMessage done{ChildMessageKind::kPayloadExited, SetupPhase::kExec, 0, 0, status, step};
    done.cpu_us = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000ll +
                  usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
    send(channel, done);
  }
}

// kExec: the command's files written, then the command started, unless one runs already.
void start_exec(const ChildPlan& plan, int work, std::uint32_t length, const int* fds, int fd_count,
                pid_t& payload, std::int32_t& step) {
  int channel = plan.fds.channel;
  int failed_file = 0;
  int written = payload != 0 ? 0 : write_command_files(work, length, &failed_file);
  pid_t started = payload != 0  ? -EBUSY
                  : written < 0 ? written
                                : start_command(plan, length, fds, fd_count);
  if (started < 0) {
    send(channel, ChildMessage{ChildMessageKind::kSetupFailed,
                               written < 0 ? SetupPhase::kCommandFile : SetupPhase::kSpawnPayload,
                               written < 0 ? failed_file : 0, -started, 0, request.step});
  } else {
    payload = started;
    step = request.step;
    send(channel,
         ChildMessage{ChildMessageKind::kCommandStarted, SetupPhase::kExec, 0, 0, 0, request.step});
  }
}

void start_resident(const ChildPlan& plan, std::uint32_t length, const int* fds, int fd_count,
                    pid_t payload) {
  int channel = plan.fds.channel;
  // What runs now (no command, no resident) is what an earlier resident left: it goes,
  // so that the new one is spawned alone and why it could not start comes back here.
  PayloadFailure failure;
  bool busy = resident != 0 || payload != 0;
  if (!busy) kill_and_reap_all();
  pid_t started = busy ? -EBUSY : start_command(plan, length, fds, fd_count, &failure);
  if (started > 0) resident = started;
  send(channel, ChildMessage{ChildMessageKind::kResidentStarted,
                             started < 0 ? failure.phase : SetupPhase::kExec, 0,
                             started < 0 ? -started : 0, started > 0 ? started : 0, 0});
}

void serve_open(int channel, int work, std::uint32_t length) {
  if (length == 0 || request.data[length - 1] != '\0') {
    reply_opened(channel, -EINVAL);
    return;
  }
  // kMakeSymlink's target follows the path, inside the packet.
  std::size_t path_end = std::strlen(request.data) + 1;
  char* target = path_end < length ? request.data + path_end : nullptr;
  reply_opened(channel, open_requested(work, static_cast<SessionOpenMode>(request.argc_or_mode),
                                       request.data, target));
}

// Everything goes and is reaped before the next request, so that a new resident can start right
// after (paddock replaces a broken bridge at once).
void kill_resident(int channel) {
  kill_and_reap_all();
  if (resident != 0) {
    resident = 0;
    send(channel, ChildMessage{ChildMessageKind::kResidentExited, SetupPhase::kExec, 0, 0, 0, 0});
  }
}

}  // namespace

void serve_session(const ChildPlan& plan) {
  int channel = plan.fds.channel;
  // The run-mode pipes are not used: each command brings its own streams.
  close(plan.fds.stdin_fd);
  close(plan.fds.stdout_fd);
  close(plan.fds.stderr_fd);
  int work = openat(AT_FDCWD, plan.workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);  // see start_step
  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  int reaper = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);  // SIGCHLD is blocked
  if (work < 0 || reaper < 0) _exit(125);
  pid_t payload = 0;
  std::int32_t step = 0;
  for (;;) {
    // A closed factory is left out with a negative fd (poll skips it).
    pollfd watched[3] = {{channel, POLLIN, 0}, {reaper, POLLIN, 0}, {socket_factory, POLLIN, 0}};
    if (poll(watched, 3, -1) < 0) continue;
    if (watched[2].revents != 0) serve_previews();
    if (watched[1].revents != 0) reap_children(channel, reaper, payload, step);
    if (watched[0].revents == 0) continue;
    int fds[kSessionMaxFds] = {-1, -1, -1, -1};
    int fd_count = 0;
    long got = receive_packet(channel, &request, sizeof request, fds, kSessionMaxFds, &fd_count);
    if (got == 0 || got == -ECONNRESET) _exit(0);  // paddock is gone: so is the session
    if (got < static_cast<long>(kSessionHeaderSize)) {
      for (int i = 0; i < fd_count; ++i) close(fds[i]);
      continue;
    }
    auto length = static_cast<std::uint32_t>(got - static_cast<long>(kSessionHeaderSize));
    switch (request.kind) {
      case SessionRequestKind::kKill:
        kill_all(payload);
        break;
      case SessionRequestKind::kOpen:
        serve_open(channel, work, length);
        break;
      case SessionRequestKind::kExec:
        start_exec(plan, work, length, fds, fd_count, payload, step);
        break;
      case SessionRequestKind::kStartResident:
        start_resident(plan, length, fds, fd_count, payload);
        break;
      case SessionRequestKind::kSweep: {
        int killed = payload != 0 ? 0 : sweep_all_but_resident(resident);
        send(channel, ChildMessage{ChildMessageKind::kSwept, SetupPhase::kExec, killed,
                                   payload != 0 ? EBUSY : 0, 0, 0});
        break;
      }
      case SessionRequestKind::kFreeze: {
        bool stopped = payload == 0 && freeze_sandbox(resident);
        send(channel, ChildMessage{ChildMessageKind::kFrozen, SetupPhase::kExec, 0,
                                   stopped ? 0 : ETIMEDOUT, 0, 0});
        break;
      }
      case SessionRequestKind::kStop: {
        int error = payload != 0 ? EBUSY : 0;
        if (error == 0 && !stop_sandbox()) error = ETIMEDOUT;
        send(channel, ChildMessage{ChildMessageKind::kFrozen, SetupPhase::kExec, 0, error, 0, 0});
        break;
      }
      case SessionRequestKind::kThaw:
        if (payload == 0) thaw_sandbox();
        break;
      case SessionRequestKind::kParkedReady:  // the relay's alone
        break;
      case SessionRequestKind::kKillResident:
        kill_resident(channel);
        break;
    }
    for (int i = 0; i < fd_count; ++i) close(fds[i]);
  }
}

}  // namespace paddock::init
