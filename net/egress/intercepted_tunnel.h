#pragma once

// A CONNECT tunnel the egress proxy terminates because a brokered secret is for its host: TLS
// with the sandbox (an end of the server's own authority), the requests between read and their
// placeholders replaced (net/egress/brokered_requests.h), and TLS with the real host, whose
// certificate is verified before a single byte of a request is written to it. A certificate that
// fails is answered with a 502 that says why in one line; the request, and the secret's value in
// it, are dropped.
//
// The answers pass back as they are: only requests are read.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/egress/brokered_requests.h"
#include "net/egress/brokered_secrets.h"
#include "net/egress/tls_terminator.h"

namespace paddock::net::egress {

// The raw buffers of the connection, as the proxy's loop holds them.
struct TunnelBuffers {
  std::string& from_client;
  std::string& to_client;
  std::string& from_upstream;
  std::string& to_upstream;
  bool client_ended;
  bool upstream_ended;
};

class InterceptedTunnel {
 public:
  enum class Fate {
    kGoesOn,
    kEnding,  // hand the client what waits for it, then end
    kEnded,   // both directions are over: shut what is left, as a relay does
  };

  InterceptedTunnel(const SandboxSecrets& secrets, std::string host, std::uint16_t port,
                    bool in_body, std::unique_ptr<TlsEnd> sandbox_end,
                    std::unique_ptr<TlsEnd> upstream_end, HeldBodyBudget* held_bodies = nullptr);

  Fate pump(TunnelBuffers buffers);
  // Whether it is the sandbox's turn: its TLS handshake, or a request it has begun, is not done.
  [[nodiscard]] bool awaits_client() const;
  // Ends a tunnel whose client left its turn unfinished for `waited`: a 408 when a request was
  // begun inside TLS the sandbox completed, else just the end.
  Fate time_out(TunnelBuffers buffers, std::chrono::seconds waited);
  // Why the upstream failed (one line), once pump() has answered a 502 for it.
  [[nodiscard]] const std::optional<std::string>& upstream_failure() const { return failure_; }
  // What was done with placeholders: a substitution counts once the request can go to the real
  // host (its TLS established), and is noted as not sent when that failed.
  std::vector<SecretUse> take_uses();

 private:
  Fate end_with(TunnelBuffers& buffers, const std::string& answer);

  const std::string host_;
  const std::uint16_t port_;
  std::unique_ptr<TlsEnd> sandbox_;
  std::unique_ptr<TlsEnd> upstream_;
  BrokeredRequests requests_;
  std::string client_plain_, upstream_plain_, answer_plain_, pending_plain_;
  std::optional<std::string> failure_;
  std::vector<SecretUse> held_uses_;
  bool upstream_closed_ = false;
  bool sandbox_closed_ = false;
};

}  // namespace paddock::net::egress
