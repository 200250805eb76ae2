#pragma once

// The egress proxy of one sandbox with an allowlist: the sandbox's only way out. Its listening
// socket is made by the sandbox's init on the sandbox's own loopback and handed over, so the
// proxy, running outside in paddock's process, accepts connections made inside the empty
// network namespace and opens its own from the host's. It serves HTTP proxy requests:
// CONNECT host:port (the tunnel's TLS server name must be that host: no domain fronting) and
// absolute-form http:// requests (the Host header must name the same host). It resolves names
// itself and refuses addresses in forbidden ranges (loopback, private, link-local, the host's
// own) unless a range pattern names them, so a name that resolves there is refused (DNS
// rebinding). A refusal is an HTTP 403 whose body names the host and why, and is recorded.
//
// Written here rather than run as tinyproxy or squid per sandbox: neither checks a tunnel's
// TLS server name against its CONNECT target, nor refuses a name by what it resolves to, and
// both expect a listening address of their own rather than a socket made in another network
// namespace. Bounded: kMaxConnections at once, heads of 16 KiB, ClientHellos of 64 KiB.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/ip_prefix.h"
#include "core/unique_fd.h"
#include "egress/host_pattern.h"
#include "egress/http_request_head.h"

namespace paddock::egress {

inline constexpr std::uint16_t kProxyPort = 3128;  // on the sandbox's own 127.0.0.1
inline constexpr std::size_t kMaxConnections = 64;
inline constexpr std::size_t kMaxDenials = 32;

struct EgressPolicy {
  AllowList allow;
  // Addresses no name may resolve to unless a range pattern of `allow` names them.
  std::vector<IpPrefix> forbidden;
  // Names answered with a fixed address instead of DNS: tests only (a local TLS server under a
  // name), from PADDOCK_EGRESS_TEST_RESOLVE in paddock's own environment, never the sandbox's.
  std::map<std::string, std::string> fixed_addresses;
};

struct Denial {
  std::string host;
  std::uint16_t port = 0;
  std::string reason;
  friend bool operator==(const Denial&, const Denial&) = default;
};

class EgressProxy {
 public:
  explicit EgressProxy(EgressPolicy policy);
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Starts accepting on `listener` (made by the sandbox's init). Once.
  void serve(UniqueFd listener);
  // Ends every connection and joins every thread. Idempotent; the destructor does it too.
  void stop();
  // The refused destinations, deduplicated, at most kMaxDenials, in the order first refused.
  [[nodiscard]] std::vector<Denial> denials() const;
  // How many further refusals there were beyond kMaxDenials.
  [[nodiscard]] std::size_t denials_dropped() const;

 private:
  struct Connection;
  void accept_loop();
  void handle(Connection& connection);
  // After a CONNECT's 200: whether the tunnel may go on. `first_bytes` holds what the client
  // sent so far, and gets what is read here.
  bool check_tunnel(int client, const RequestHead& head, bool literal, std::string& first_bytes);
  void deny(const std::string& host, std::uint16_t port, const std::string& reason);

  EgressPolicy policy_;
  UniqueFd listener_;
  UniqueFd wake_read_, wake_write_;  // stop() wakes the accept loop
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Denial> denials_;
  std::size_t dropped_ = 0;
};

}  // namespace paddock::egress
