#pragma once

// The server name (SNI) a TLS client asks for, read from the first bytes it sends through a
// CONNECT tunnel: the proxy compares it with the CONNECT target, so that a tunnel opened to an
// allowed name cannot carry TLS to another one (domain fronting). Written here, not taken from
// a TLS library, because only this one field of an untrusted ClientHello is wanted, without a
// handshake; every length is checked against what arrived (RFC 8446 section 4.1.2, RFC 6066
// section 3).

#include <cstddef>
#include <string>
#include <string_view>

namespace paddock::net::egress {

struct ClientHelloName {
  enum class State {
    kNeedMore,   // the ClientHello is not all there yet
    kFound,      // `name` is the host_name asked for
    kNone,       // a ClientHello without server_name
    kMalformed,  // not a TLS ClientHello, or lengths that do not add up
  };
  State state = State::kNeedMore;
  std::string name;  // lower case
};

// The ClientHello may span several TLS records; at most kMaxClientHello bytes are considered.
inline constexpr std::size_t kMaxClientHello = 64 * 1024;
ClientHelloName client_hello_server_name(std::string_view bytes);

}  // namespace paddock::net::egress
