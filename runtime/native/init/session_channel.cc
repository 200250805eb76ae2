#include "runtime/native/init/session_channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace paddock::init {
namespace {

constexpr std::size_t kControlSize = CMSG_SPACE(sizeof(int) * kSessionMaxFds);

}  // namespace

int send_packet(int socket, const void* data, std::size_t length, const int* fds, int fd_count) {
  iovec part{const_cast<void*>(data), length};
  alignas(cmsghdr) char control[kControlSize] = {};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  if (fd_count > 0) {
    if (fd_count > kSessionMaxFds) return EINVAL;
    header.msg_control = control;
    // Cast to the field's own type: size_t in glibc, socklen_t in musl (paddock-init's).
    header.msg_controllen = static_cast<decltype(header.msg_controllen)>(
        CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(fd_count)));
    cmsghdr* rights = CMSG_FIRSTHDR(&header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = static_cast<decltype(rights->cmsg_len)>(
        CMSG_LEN(sizeof(int) * static_cast<std::size_t>(fd_count)));
    std::memcpy(CMSG_DATA(rights), fds, sizeof(int) * static_cast<std::size_t>(fd_count));
  }
  for (;;) {
    if (sendmsg(socket, &header, MSG_NOSIGNAL) >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int send_session_request(int socket, SessionRequestKind kind) {
  // Only the header travels; the data array stays out of the way.
  alignas(SessionRequest) char header[kSessionHeaderSize] = {};
  std::memcpy(header + offsetof(SessionRequest, kind), &kind, sizeof kind);
  return send_packet(socket, header, sizeof header, nullptr, 0);
}

long receive_packet(int socket, void* data, std::size_t capacity, int* fds, int max_fds,
                    int* fd_count) {
  iovec part{data, capacity};
  alignas(cmsghdr) char control[kControlSize] = {};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t got;
  while ((got = recvmsg(socket, &header, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  *fd_count = 0;
  if (got < 0) return -errno;
  for (cmsghdr* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
    if (item->cmsg_level != SOL_SOCKET || item->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (item->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(item) + i * sizeof(int), sizeof fd);
      if (*fd_count < max_fds) {
        fds[(*fd_count)++] = fd;
      } else {
        close(fd);
      }
    }
  }
  // A truncated packet is not a request anyone sent on purpose: treat it as garbage.
  if ((header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    for (int i = 0; i < *fd_count; ++i) close(fds[i]);
    *fd_count = 0;
    return -EMSGSIZE;
  }
  return got;
}

}  // namespace paddock::init
