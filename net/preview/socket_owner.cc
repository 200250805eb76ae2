#include "net/preview/socket_owner.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "core/unique_fd.h"

namespace paddock::net::preview {

core::Result<uid_t> loopback_peer_owner(const sockaddr_in& peer, const sockaddr_in& local) {
  core::UniqueFd diag(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!diag.valid()) return core::system_error("opening a sock_diag socket");
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, by its addresses: no dump
  ask.header.nlmsg_seq = 1;
  ask.request.sdiag_family = AF_INET;
  ask.request.sdiag_protocol = IPPROTO_TCP;
  ask.request.idiag_states = ~0u;
  ask.request.id.idiag_sport = peer.sin_port;
  ask.request.id.idiag_dport = local.sin_port;
  std::memcpy(ask.request.id.idiag_src, &peer.sin_addr, sizeof peer.sin_addr);
  std::memcpy(ask.request.id.idiag_dst, &local.sin_addr, sizeof local.sin_addr);
  ask.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(diag.get(), &ask, sizeof ask, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) <
      0) {
    return core::system_error("asking sock_diag who owns a connection");
  }
  alignas(nlmsghdr) char reply[8192];
  ssize_t got;
  while ((got = recv(diag.get(), reply, sizeof reply, 0)) < 0 && errno == EINTR) {
  }
  if (got < 0) return core::system_error("reading sock_diag's answer");
  auto* message = reinterpret_cast<nlmsghdr*>(reply);
  if (!NLMSG_OK(message, static_cast<unsigned>(got))) {
    return core::Error{EPROTO, "sock_diag's answer is malformed"};
  }
  if (message->nlmsg_type == NLMSG_ERROR) {
    auto* error = static_cast<nlmsgerr*>(NLMSG_DATA(message));
    int code = error->error < 0 ? -error->error : ENOENT;
    return core::system_error("asking sock_diag who owns a connection", code);
  }
  if (message->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
      message->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
    return core::Error{EPROTO, "sock_diag's answer is not a socket's"};
  }
  const auto* socket_found = static_cast<const inet_diag_msg*>(NLMSG_DATA(message));
  // The kernel matched on the addresses asked; check anyway, so a surprise refuses.
  if (socket_found->id.idiag_sport != peer.sin_port ||
      socket_found->id.idiag_dport != local.sin_port) {
    return core::Error{EPROTO, "sock_diag answered about another socket"};
  }
  return static_cast<uid_t>(socket_found->idiag_uid);
}

}  // namespace paddock::net::preview
