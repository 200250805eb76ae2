#include "runtime/native/init_relay.h"

#include <linux/seccomp.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/native/init_relay_bpf.h"
#include "runtime/native/session_channel.h"

namespace paddock {
namespace {

// The largest packet either side sends: a session request.
SessionRequest buffer;

// One packet from `from` to `to`; false when `from` has closed (or failed).
bool forward(int from, int to) {
  int fds[kSessionMaxFds];
  int fd_count = 0;
  long got = receive_packet(from, &buffer, sizeof buffer, fds, kSessionMaxFds, &fd_count);
  if (got > 0) send_packet(to, &buffer, static_cast<std::size_t>(got), fds, fd_count);
  for (int i = 0; i < fd_count; ++i) close(fds[i]);
  return got > 0;
}

}  // namespace

void relay_until_init_exits(int paddock_channel, int init_socket, pid_t init) {
  auto filter = seccomp::init_relay_bpf();
  sock_fprog program{static_cast<unsigned short>(filter.size()),
                     const_cast<sock_filter*>(filter.data())};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) _exit(125);
  for (;;) {
    pollfd watched[2] = {{paddock_channel, POLLIN, 0}, {init_socket, POLLIN, 0}};
    if (poll(watched, 2, -1) < 0) continue;
    // init's messages first: its last ones are queued before the end of file that ends this.
    if (watched[1].revents != 0 && !forward(init_socket, paddock_channel)) break;
    if (watched[0].revents != 0 && !forward(paddock_channel, init_socket)) _exit(0);
  }
  while (wait4(init, nullptr, __WALL, nullptr) < 0 && errno == EINTR) {
  }
  _exit(0);
}

}  // namespace paddock
