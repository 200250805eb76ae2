#include <fcntl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "net/preview/forwarder_parts.h"
#include "net/preview/socket_request.h"

namespace paddock::net::preview {
namespace {

// The socket a factory sent is what the protocol says, or it is not used: a TCP socket of the
// IPv4 family, not connected yet.
bool is_fresh_tcp_socket(int fd) {
  int domain = 0, type = 0, protocol = 0;
  socklen_t size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0 || domain != AF_INET) return false;
  size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) return false;
  size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &size) != 0 || protocol != IPPROTO_TCP) {
    return false;
  }
  sockaddr_in peer{};
  socklen_t peer_size = sizeof peer;
  return getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 && errno == ENOTCONN;
}

}  // namespace

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

void PreviewForwarder::ask_socket(Connection& connection) {
  connection.state = Connection::State::kWaitSocket;
  connection.deadline = Clock::now() + kPreviewConnectDeadline;
  auto preview = previews_.find(connection.preview);
  auto group = preview == previews_.end() ? groups_.end() : groups_.find(preview->second->group);
  if (group == groups_.end() || !group->second->factory.valid()) {
    finish(connection, false, "the session is gone");
    return;
  }
  std::uint8_t request = kPreviewSocketRequest;
  if (send(group->second->factory.get(), &request, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
    finish(connection, false,
           std::string("asking the sandbox for a socket: ") + std::strerror(errno));
    return;
  }
  group->second->waiting.push_back(connection.id);
}

void PreviewForwarder::take_socket(Group& group) {
  PreviewSocketAnswer answer;
  iovec part{&answer, sizeof answer};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t got = recvmsg(group.factory.get(), &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  core::UniqueFd socket_fd;
  for (cmsghdr* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
    if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_RIGHTS &&
        item->cmsg_len == CMSG_LEN(sizeof(int))) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(item), sizeof fd);
      socket_fd.reset(fd);
    }
  }
  if (got <= 0) {
    // The session's init is gone: so is every preview's way in.
    group.factory.reset();
    for (std::uint64_t id : group.waiting) {
      if (auto it = connections_.find(id); it != connections_.end()) {
        finish(*it->second, false, "the session is gone");
      }
    }
    group.waiting.clear();
    return;
  }
  if (group.waiting.empty()) return;  // an answer nobody asked for: dropped
  std::uint64_t id = group.waiting.front();
  group.waiting.pop_front();
  auto it = connections_.find(id);
  if (it == connections_.end() || it->second->done) return;
  Connection& connection = *it->second;
  if (got != static_cast<ssize_t>(sizeof answer) || answer.error != 0) {
    finish(connection, false,
           "the sandbox could not make a socket: " +
               std::string(std::strerror(answer.error != 0 ? answer.error : EPROTO)));
    return;
  }
  if (!socket_fd.valid() || !is_fresh_tcp_socket(socket_fd.get())) {
    finish(connection, false, "the sandbox sent something else than a new TCP socket");
    return;
  }
  fcntl(socket_fd.get(), F_SETFL, fcntl(socket_fd.get(), F_GETFL) | O_NONBLOCK);
  sockaddr_in target = loopback(previews_.at(connection.preview)->sandbox_port);
  connection.upstream = std::move(socket_fd);
  if (connect(connection.upstream.get(), reinterpret_cast<sockaddr*>(&target), sizeof target) ==
          0 ||
      errno == EINPROGRESS) {
    connection.state = Connection::State::kConnecting;
    return;
  }
  finish(connection, false, std::strerror(errno));
}

}  // namespace paddock::net::preview
