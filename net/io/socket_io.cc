#include "net/io/socket_io.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace paddock::net::io {

bool send_some(int fd, std::string& bytes) {
  while (!bytes.empty()) {
    ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    bytes.erase(0, static_cast<std::size_t>(sent));
  }
  return true;
}

ReadResult receive_some(int fd, std::string& buffer, std::size_t room) {
  char chunk[16 * 1024];
  ssize_t got;
  while ((got = recv(fd, chunk, std::min(room, sizeof chunk), MSG_DONTWAIT)) < 0 &&
         errno == EINTR) {
  }
  if (got > 0) {
    buffer.append(chunk, static_cast<std::size_t>(got));
    return ReadResult::kSome;
  }
  if (got == 0) return ReadResult::kEnd;
  return errno == EAGAIN || errno == EWOULDBLOCK ? ReadResult::kNothing : ReadResult::kFailed;
}

}  // namespace paddock::net::io
