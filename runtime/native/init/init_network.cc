// init's side of the sandbox's network namespace: its loopback, the late namespace the relay
// makes, and the egress proxy's listener.
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/native/init/child_parts.h"

namespace paddock::init::child_parts {

// `lo` up in the sandbox's own network namespace (it starts down), which gives it 127.0.0.1 and
// ::1, as bubblewrap and Docker do for "no network". 0 or an errno. Allocation-free.
int bring_loopback_up() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  ifreq request{};
  std::memcpy(request.ifr_name, "lo", 3);
  int error = 0;
  if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    error = errno;
  } else if ((request.ifr_flags & IFF_UP) == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) error = errno;
  }
  close(fd);
  return error;
}

// In init: the relay's pidfd while a late network is being made (ChildPlan::late_network).
int late_network_source = -1;

// In the relay, right after it forked init: the sandbox's network namespace, made while init
// builds the file system, with its loopback up. The kernel's work for a new network namespace
// (0.5-1 ms here) so runs beside the mount plan instead of before everything, in the clone.
// init is told it is made (or why not) and joins it through the relay's pidfd. The socket pair
// between the two was made in paddock's network namespace, where a socket of init's could be
// bound to an abstract name of the host's: a new pair, made in the sandbox's, replaces it, and
// init gets its end with the message. Returns the relay's end.
int make_late_network(int init_socket) {
  ChannelPacket made;
  made.message =
      ChildMessage{ChildMessageKind::kNetworkMade, SetupPhase::kNetworkNamespace, 1, 0, 0, 0};
  int pair[2] = {-1, -1};
  if (unshare(CLONE_NEWNET) != 0) {
    made.message.error = errno;
  } else if (int error = bring_loopback_up(); error != 0) {
    made.message.error = error;
  } else if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    made.message.error = errno;
  } else {
    made.attach_fd(pair[1]);
  }
  if (pair[1] < 0) made.header.msg_controllen = 0;
  // If init cannot hear it, it is gone, and so is the sandbox: the relay's loop sees that.
  while (sendmsg(init_socket, &made.header, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  if (pair[1] < 0) return init_socket;
  close(pair[1]);
  // The old pair stays open here: until init takes the new one, it reports a failure there, and
  // a hang-up on it means the relay died (take_identity checks for that).
  return pair[0];
}

// In init, with the file system built and privileges still held: joins the namespace the relay
// made, and takes the channel made in it. init was cloned into paddock's own network namespace,
// so nothing may run before this, and anything but a namespace made and joined ends the sandbox.
void join_late_network(int channel) {
  ChannelPacket made;
  ssize_t got;
  while ((got = recvmsg(channel, &made.header, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  // The channel the relay listens on from now on, so that a failure below reaches paddock.
  int fresh = got == sizeof made.message ? made.received_fd() : -1;
  if (fresh >= 0) {
    if (dup3(fresh, channel, O_CLOEXEC) < 0) fail(channel, SetupPhase::kNetworkNamespace, errno, 2);
    close(fresh);
  }
  if (got != sizeof made.message || made.message.kind != ChildMessageKind::kNetworkMade) {
    fail(channel, SetupPhase::kNetworkNamespace, got < 0 ? errno : EPROTO, 2);
  }
  if (made.message.error != 0) fail(channel, SetupPhase::kNetworkNamespace, made.message.error, 1);
  if (fresh < 0) fail(channel, SetupPhase::kNetworkNamespace, EPROTO, 2);
  if (setns(late_network_source, CLONE_NEWNET) != 0) {
    // Linux before 5.8 cannot join through a pidfd (EINVAL): a namespace of init's own, then,
    // made here on the start's path. Either way the program's is new and has only its loopback.
    if (errno != EINVAL) fail(channel, SetupPhase::kNetworkNamespace, errno, 3);
    if (unshare(CLONE_NEWNET) != 0) fail(channel, SetupPhase::kNetworkNamespace, errno, 3);
    if (int up = bring_loopback_up(); up != 0) fail(channel, SetupPhase::kLoopback, up);
  }
  close(late_network_source);
  late_network_source = -1;
}

// The egress proxy's listening socket on the sandbox's 127.0.0.1:`port`, made here because only
// a process in the sandbox's network namespace can make it (an unprivileged parent cannot enter
// the namespace), and sent to the parent, whose proxy accepts on it from outside. 0 or an errno.
int send_proxy_listener(int channel, std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int error = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(fd, 128) != 0) {
    error = errno;
  } else {
    ChannelPacket packet;
    packet.message =
        ChildMessage{ChildMessageKind::kProxyListener, SetupPhase::kLoopback, 0, 0, 0, 0};
    packet.attach_fd(fd);
    while (sendmsg(channel, &packet.header, MSG_NOSIGNAL) < 0) {
      if (errno != EINTR) {
        error = errno;
        break;
      }
    }
  }
  close(fd);
  return error;
}

}  // namespace paddock::init::child_parts
