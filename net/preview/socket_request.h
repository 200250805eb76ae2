#pragma once

// How paddock asks a sandbox's init for a TCP socket made in the sandbox's own network
// namespace (a preview's way in, net/preview/forwarder.h). Init hands paddock one end of a
// SOCK_SEQPACKET socketpair (ChildMessageKind::kSocketFactory); on it, every packet paddock sends
// is one request, and init answers each, in order, with one packet of a PreviewSocketAnswer and,
// when `error` is 0, the socket riding along (SCM_RIGHTS): AF_INET, SOCK_STREAM, unconnected.
// A socket's namespace is fixed when it is made, so whatever paddock connects it to is the
// sandbox's own, never the host's. Header-only: paddock-init uses it and must not allocate.

#include <cstdint>

namespace paddock::net::preview {

inline constexpr std::uint8_t kPreviewSocketRequest = 'S';

struct PreviewSocketAnswer {
  std::int32_t error = 0;  // an errno: why init could not make the socket
};

}  // namespace paddock::net::preview
