#pragma once

// One connection through an egress proxy, as the proxy's loop (proxy.cc) holds it and its
// stages (proxy_connection.cc) move it on: private to the proxy.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/unique_fd.h"
#include "net/egress/connection_budget.h"
#include "net/egress/host_pattern.h"
#include "net/egress/intercepted_tunnel.h"
#include "net/egress/name_resolver.h"
#include "net/egress/proxy.h"
#include "net/egress/tls_client_hello.h"
#include "net/http1/request_head.h"

namespace paddock::net::egress {

using Clock = std::chrono::steady_clock;

inline constexpr std::chrono::seconds kConnectTimeout{10};  // to one upstream address
inline constexpr std::chrono::seconds kLookupTimeout{30};   // for a name, however slow its DNS
// Before a server-speaks-first protocol is assumed.
inline constexpr std::chrono::seconds kFirstBytesWait{2};
// To hand a refusal to a client that does not read.
inline constexpr std::chrono::seconds kRefusalDeadline{10};
inline constexpr std::size_t kAcceptsPerTurn = 16;
inline constexpr Clock::time_point kNever = Clock::time_point::max();

struct EgressProxy::Connection {
  enum class Stage {
    kHead,        // reading the first request's head
    kResolving,   // its host's name is being looked up (or waits for a lookup to start)
    kAsking,      // the person is asked whether it may go there (HostConsent)
    kConnecting,  // a nonblocking connect to candidates[next_candidate - 1]
    kSniffing,    // a tunnel after its 200: reading what the client sends first (its ClientHello)
    kRelaying,    // bytes both ways; plain HTTP: each further request's head is checked
    kClosing,     // a refusal or error is being handed to the client; then the end
    kDone,
  };
  std::uint64_t id = 0;
  std::uint64_t generation = 0;
  ServerSlot slot;
  core::UniqueFd client;
  core::UniqueFd upstream;
  Stage stage = Stage::kHead;
  // When the present stage's wait ends: expire() says what then.
  Clock::time_point deadline = kNever;
  // kRelaying: when it ends if nothing moves meanwhile (EgressProxy::keep_alive).
  Clock::time_point idle_deadline = kNever;
  http1::RequestHead head;  // the first request: where the connection goes
  std::shared_ptr<const AllowList> allow;
  bool literal = false;
  // Not covered by `allow`: reached only if the person says so (null: refused).
  std::shared_ptr<HostConsent> consent;
  bool installer = false;                   // the list it was judged by was an installer's
  std::vector<ResolvedAddress> candidates;  // resolved, permitted
  std::size_t next_candidate = 0;
  int connect_error = ECONNREFUSED;
  // A tunnel's sniffing: the wait for its first byte, then for the rest of its ClientHello.
  Clock::time_point first_bytes_deadline = kNever;
  Clock::time_point handshake_deadline = kNever;
  // Bytes read from the client and not yet judged or passed on, and what waits to be written.
  std::string from_client, to_upstream, to_client;
  bool client_ended = false;    // the client sent its last byte
  bool upstream_ended = false;  // the upstream did
  bool requests_ended = false;  // plain HTTP: nothing more of the client's goes upstream
  bool upstream_shut = false;   // its sending side is shut: it has all it will get
  bool client_shut = false;     // the same toward the client
  std::uint64_t body_left = 0;  // plain HTTP: request body bytes still to pass on
  bool touched = false;         // something happened to it this turn: advance() it
  // A tunnel whose TLS the proxy terminates (a brokered secret's host): the upstream's raw
  // bytes wait in from_upstream for it rather than going to the client as they are.
  std::unique_ptr<InterceptedTunnel> intercepted;
  std::string from_upstream;

  // Ends the connection at once; its descriptors close when it is erased, this turn.
  void end() { stage = Stage::kDone; }
  // Sends `bytes` (an answer of the proxy's own), then ends the connection.
  void close_with(std::string bytes) {
    to_client += bytes;
    stage = Stage::kClosing;
    deadline = Clock::now() + kRefusalDeadline;
  }
  // How much more may be read from the client now.
  [[nodiscard]] std::size_t client_room() const {
    std::size_t cap = stage == Stage::kHead       ? http1::kMaxRequestHead + 1
                      : stage == Stage::kSniffing ? kMaxClientHello + 1
                                                  : kRelayBuffer;
    std::size_t held = from_client.size() + (stage == Stage::kRelaying ? to_upstream.size() : 0);
    return held < cap ? cap - held : 0;
  }
  [[nodiscard]] bool reads_client() const {
    switch (stage) {
      case Stage::kHead:
      case Stage::kSniffing:
        return !client_ended && client_room() > 0;
      case Stage::kRelaying:
        return !client_ended && !requests_ended && client_room() > 0;
      default:
        return false;
    }
  }
  [[nodiscard]] bool reads_upstream() const {
    return stage == Stage::kRelaying && !upstream_ended && to_client.size() < kRelayBuffer &&
           from_upstream.size() < kRelayBuffer;
  }
  // Where the upstream's bytes go.
  std::string& upstream_bytes() { return intercepted ? from_upstream : to_client; }
};

}  // namespace paddock::net::egress
