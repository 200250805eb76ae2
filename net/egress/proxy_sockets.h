#pragma once

// The egress proxy's socket work (proxy.cc, proxy_connection.cc): one side of a connection
// served, the proxy's own short HTTP answers, and the address a connection really reaches.

#include <poll.h>
#include <sys/socket.h>

#include <cstddef>
#include <optional>
#include <string>

#include "core/ip_prefix.h"
#include "core/unique_fd.h"
#include "net/io/socket_io.h"

namespace paddock::net::egress {

// The address `address` reaches, as a prefix of its full length: an IPv6 address that embeds an
// IPv4 one (IPv4-mapped, NAT64, 6to4) as that IPv4 address. Nothing for other families.
std::optional<core::IpPrefix> prefix_of(const sockaddr* address);

// An HTTP/1.1 response of the proxy's own, with a text body, that closes the connection.
std::string response(const char* status, const std::string& body);

// For a connection refused at the door: one try to say why, never a wait.
void answer_and_close(core::UniqueFd client, const char* status, const std::string& body);

// One side of a connection after poll: sends what waits for it, reads what it sent into `into`
// (at most `room`) while `reads()` says it may, and marks its end in `ended`. False when the
// side failed, or is gone (POLLERR) with nothing more to read from it: then the other side has
// no reason to stay either.
template <typename Reads>
bool serve_side(int fd, short events, std::string& outgoing, Reads reads, std::string& into,
                std::size_t room, bool& ended) {
  if ((events & POLLOUT) != 0 && !io::send_some(fd, outgoing)) return false;
  if ((events & (POLLIN | POLLHUP | POLLERR)) != 0 && reads()) {
    switch (io::receive_some(fd, into, room)) {
      case io::ReadResult::kEnd:
        ended = true;
        break;
      case io::ReadResult::kFailed:
        return false;
      default:
        break;
    }
  }
  return (events & POLLERR) == 0 || reads();
}

}  // namespace paddock::net::egress
