#pragma once

// What the egress proxy needs of a TLS library to broker secrets (net/egress/brokered_secrets.h),
// as an interface: the proxy and its loop stay free of any TLS library, and only the executables
// that broker secrets link one (net/egress/tls/, OpenSSL; paddock-full). Each end works on memory
// buffers, never on a socket, so that the proxy's one nonblocking loop drives it as it drives
// every other connection.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::net::egress {

// One side of a TLS connection over buffers: the raw bytes its peer sent go in, the raw bytes
// for its peer come out, and the application's plaintext is read and written between.
class TlsEnd {
 public:
  virtual ~TlsEnd() = default;
  // Raw bytes the peer sent.
  virtual void receive(std::string_view raw) = 0;
  // How many raw bytes are received and not yet processed: the proxy gives no more while this
  // is large, so that a peer cannot make it hold more than its buffers.
  [[nodiscard]] virtual std::size_t unprocessed() const = 0;
  // Moves the handshake on and appends decrypted bytes to `plain`, at most `room`. False when
  // the connection failed (error() says why, in one line).
  virtual bool read(std::string& plain, std::size_t room) = 0;
  // Encrypts `plain`; only once established(). False when it failed.
  virtual bool write(std::string_view plain) = 0;
  // Appends the raw bytes to send to the peer, and forgets them.
  virtual void take_outgoing(std::string& raw) = 0;
  [[nodiscard]] virtual bool established() const = 0;
  // The peer ended its side (close_notify).
  [[nodiscard]] virtual bool peer_closed() const = 0;
  // Ends this side (close_notify), once.
  virtual void close() = 0;
  [[nodiscard]] virtual std::string error() const = 0;
};

// Makes the two ends of an intercepted connection; shared by every proxy of a server, from any
// of their threads.
class TlsTerminator {
 public:
  virtual ~TlsTerminator() = default;
  // The end that faces the sandbox, as the server `host`: a certificate for it, issued by the
  // server's own authority; ALPN offers http/1.1 alone.
  virtual core::Result<std::unique_ptr<TlsEnd>> serve(const std::string& host) = 0;
  // The end that faces the real `host`: its server name, and its certificate verified against
  // the host's trust store or the user's CA file.
  virtual core::Result<std::unique_ptr<TlsEnd>> connect(const std::string& host) = 0;
};

}  // namespace paddock::net::egress
