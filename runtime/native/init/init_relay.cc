#include "runtime/native/init/init_relay.h"

#include <linux/ioctl.h>  // _IOWR, for linux/seccomp.h
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/native/init/channel.h"
#include "runtime/native/init/init_relay_bpf.h"
#include "runtime/native/init/seccomp_notify.h"
#include "runtime/native/init/session_channel.h"

namespace paddock::init {
namespace {

// ioctl through syscall(): the kernel reads the request as an unsigned int, and glibc and musl
// (which paddock-init is built against) declare the wrapper's request unsigned long and int.
int notify_ioctl(int listener, unsigned int request, void* argument) {
  return static_cast<int>(syscall(SYS_ioctl, listener, request, argument));
}

// The largest packet either side sends: a session request.
SessionRequest buffer;

// The seccomp listener init handed over, or -1, and what it refused since the last command.
int listener = -1;
RefusedCalls refused;

// What init sends that is the relay's business, not paddock's: the listener is kept, and the
// counts ride along with a command's exit. False: the packet is not to be forwarded.
bool take_from_init(long length, int* fds, int fd_count) {
  if (length != static_cast<long>(sizeof(ChildMessage))) return true;
  ChildMessage message;
  std::memcpy(static_cast<void*>(&message), &buffer, sizeof message);
  switch (message.kind) {
    case ChildMessageKind::kSeccompListener:
      if (listener < 0 && fd_count == 1) {
        listener = fds[0];
        fds[0] = -1;
        refused = RefusedCalls{};
        refused.counted = true;
      }
      return false;
    case ChildMessageKind::kPayloadExited:
      message.refused = refused;
      std::memcpy(static_cast<void*>(&buffer), &message, sizeof message);
      refused = RefusedCalls{};
      refused.counted = listener >= 0;
      return true;
    case ChildMessageKind::kStepBoundary:
      // What the installer steps were refused is not the program's. Sent before the next step
      // starts, and read before the refusals waiting beside it (relay_until_init_exits).
      refused = RefusedCalls{};
      refused.counted = listener >= 0;
      return true;
    default:
      return true;
  }
}

// One packet from `from` to `to`; false when `from` has closed (or failed).
bool forward(int from, int to, bool from_init) {
  int fds[kSessionMaxFds];
  int fd_count = 0;
  long got = receive_packet(from, &buffer, sizeof buffer, fds, kSessionMaxFds, &fd_count);
  // A peer that closed with a packet unread (init dying with a request, or the late network's
  // word, in its queue) leaves a reset, reported once and before what it sent: read on past it.
  if (got == -ECONNRESET) {
    got = receive_packet(from, &buffer, sizeof buffer, fds, kSessionMaxFds, &fd_count);
  }
  // A session's command counts its own refusals from the request that starts it: init says it
  // started only once it runs, and by then it may have been refused something. What a resident
  // was refused between commands is not the next command's, nor what a warm interpreter was
  // refused as it started (preloading) its call's.
  if (!from_init && got >= static_cast<long>(kSessionHeaderSize) &&
      (buffer.kind == SessionRequestKind::kExec ||
       buffer.kind == SessionRequestKind::kParkedReady)) {
    refused = RefusedCalls{};
    refused.counted = listener >= 0;
  }
  if (got > 0 && (!from_init || take_from_init(got, fds, fd_count))) {
    send_packet(to, &buffer, static_cast<std::size_t>(got), fds, fd_count);
  }
  for (int i = 0; i < fd_count; ++i) {
    if (fds[i] >= 0) close(fds[i]);
  }
  return got > 0;
}

// Answers the refused calls waiting on the listener, a bounded batch at a time so that
// paddock's packets are never starved. Each gets the errno form's errno: the answer has no
// SECCOMP_USER_NOTIF_FLAG_CONTINUE and a nonzero error, so the call fails and nothing runs.
void answer_refusals(const sock_fprog& refusals) {
  for (int batch = 0; batch < 64; ++batch) {
    pollfd ready{listener, POLLIN, 0};
    if (poll(&ready, 1, 0) != 1 || (ready.revents & POLLIN) == 0) {
      if ((ready.revents & (POLLHUP | POLLERR)) != 0) {
        // Every process under the filter has gone.
        close(listener);
        listener = -1;
      }
      return;
    }
    seccomp_notif call;
    std::memset(&call, 0, sizeof call);  // the kernel insists
    if (notify_ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) continue;  // caller died
    seccomp_notif_resp answer;
    std::memset(&answer, 0, sizeof answer);
    answer.id = call.id;
    answer.error = -seccomp::refused_errno(refusals.filter, refusals.len, call.data);
    answer.flags = 0;
    // ENOSYS is the filter pretending a call does not exist (clone3, whose flags it cannot
    // read), so that libc falls back to one it can check: every threaded program makes it, and
    // none notices. Counting it would name a refusal on nearly every run.
    if (answer.error != -ENOSYS) refused.add(call.data.nr);
    // ENOENT: the caller was killed meanwhile; the call is refused either way.
    notify_ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &answer);
  }
}

}  // namespace

void relay_until_init_exits(int paddock_channel, int init_socket, pid_t init, int init_before,
                            const sock_fprog& refusals) {
  auto filter = seccomp::init_relay_bpf();
  sock_fprog program{static_cast<unsigned short>(filter.size()),
                     const_cast<sock_filter*>(filter.data())};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) _exit(125);
  for (;;) {
    // A closed socket is left out with a negative fd (poll skips it).
    pollfd watched[4] = {{paddock_channel, POLLIN, 0},
                         {init_socket, POLLIN, 0},
                         {init_before, POLLIN, 0},
                         {listener, POLLIN, 0}};
    if (poll(watched, 4, -1) < 0) continue;
    // What init sent before it took its new channel (a failure of its setup) goes first.
    if (watched[2].revents != 0 && !forward(init_before, paddock_channel, true)) {
      close(init_before);
      init_before = -1;
    }
    // init's messages before the refusals waiting beside them, all that are queued: a step
    // boundary was sent before the step that is being refused began, and must reset the count
    // before that step's calls are counted. A command's exit still comes after all its calls
    // were answered (a process waiting on an answer cannot exit). Its last messages are queued
    // before the end of file that ends this.
    bool init_ended = false;
    // At most 64 at a time, so that neither side waits long behind the other.
    pollfd more{init_socket, POLLIN, 0};
    for (int drained = 0; watched[1].revents != 0 && drained < 64; ++drained) {
      if (!forward(init_socket, paddock_channel, true)) {
        init_ended = true;
        break;
      }
      if (poll(&more, 1, 0) != 1) break;
    }
    if (init_ended) break;
    if (watched[3].revents != 0) answer_refusals(refusals);
    if (watched[0].revents != 0 && !forward(paddock_channel, init_socket, false)) _exit(0);
  }
  // An init that died before taking its new channel closed both at once: what it sent on the
  // old one was queued before, and goes now.
  for (pollfd old{init_before, POLLIN, 0}; init_before >= 0 && poll(&old, 1, 0) == 1;) {
    if (!forward(init_before, paddock_channel, true)) break;
  }
  while (wait4(init, nullptr, __WALL, nullptr) < 0 && errno == EINTR) {
  }
  _exit(0);
}

}  // namespace paddock::init
