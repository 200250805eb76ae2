#pragma once

// Which user owns the other end of a TCP connection on this machine's loopback, asked of the
// kernel through NETLINK_SOCK_DIAG (inet_diag, looked up by the connection's addresses and
// ports: no privilege needed). A preview (net/preview/forwarder.h) refuses a connection
// from another user's socket: that is what keeps a second local user out of a plain TCP
// preview, where no token can ride.

#include <netinet/in.h>
#include <sys/types.h>

#include "core/result.h"

namespace paddock::net::preview {

// The uid owning the socket whose local address is `peer` and whose remote address is `local`
// (the client's end of a connection this process accepted on `local`). ENOENT when the kernel
// knows no such socket (it closed meanwhile).
core::Result<uid_t> loopback_peer_owner(const sockaddr_in& peer, const sockaddr_in& local);

}  // namespace paddock::net::preview
