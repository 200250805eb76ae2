#include "runtime/native/init/init_relay.h"

#include <linux/seccomp.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/native/init/init_relay_bpf.h"
#include "runtime/native/init/session_channel.h"

namespace paddock {
namespace {

// The largest packet either side sends: a session request.
SessionRequest buffer;

// One packet from `from` to `to`; false when `from` has closed (or failed).
bool forward(int from, int to) {
  int fds[kSessionMaxFds];
  int fd_count = 0;
  long got = receive_packet(from, &buffer, sizeof buffer, fds, kSessionMaxFds, &fd_count);
  // A peer that closed with a packet unread (init dying with a request, or the late network's
  // word, in its queue) leaves a reset, reported once and before what it sent: read on past it.
  if (got == -ECONNRESET) {
    got = receive_packet(from, &buffer, sizeof buffer, fds, kSessionMaxFds, &fd_count);
  }
  if (got > 0) send_packet(to, &buffer, static_cast<std::size_t>(got), fds, fd_count);
  for (int i = 0; i < fd_count; ++i) close(fds[i]);
  return got > 0;
}

}  // namespace

void relay_until_init_exits(int paddock_channel, int init_socket, pid_t init, int init_before) {
  auto filter = seccomp::init_relay_bpf();
  sock_fprog program{static_cast<unsigned short>(filter.size()),
                     const_cast<sock_filter*>(filter.data())};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) _exit(125);
  for (;;) {
    // A closed socket is left out with a negative fd (poll skips it).
    pollfd watched[3] = {
        {paddock_channel, POLLIN, 0}, {init_socket, POLLIN, 0}, {init_before, POLLIN, 0}};
    if (poll(watched, 3, -1) < 0) continue;
    // What init sent before it took its new channel (a failure of its setup) goes first.
    if (watched[2].revents != 0 && !forward(init_before, paddock_channel)) {
      close(init_before);
      init_before = -1;
    }
    // init's messages first: its last ones are queued before the end of file that ends this.
    if (watched[1].revents != 0 && !forward(init_socket, paddock_channel)) break;
    if (watched[0].revents != 0 && !forward(paddock_channel, init_socket)) _exit(0);
  }
  // An init that died before taking its new channel closed both at once: what it sent on the
  // old one was queued before, and goes now.
  for (pollfd old{init_before, POLLIN, 0}; init_before >= 0 && poll(&old, 1, 0) == 1;) {
    if (!forward(init_before, paddock_channel)) break;
  }
  while (wait4(init, nullptr, __WALL, nullptr) < 0 && errno == EINTR) {
  }
  _exit(0);
}

}  // namespace paddock
