#pragma once

// The egress proxy of one sandbox with an allowlist: the sandbox's only way out. Its listening
// socket is made by the sandbox's init on the sandbox's own loopback and handed over, so the
// proxy, running outside in paddock's process, accepts connections made inside the empty
// network namespace and opens its own from the host's. It serves HTTP proxy requests:
// CONNECT host:port (the tunnel's TLS server name must be that host: no domain fronting by SNI;
// what goes inside the TLS is not seen) and absolute-form http:// requests (the Host header
// must name the same host, on every request of a kept-alive connection). It resolves names
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
#include "core/result.h"
#include "core/unique_fd.h"
#include "egress/egress_record.h"
#include "egress/host_pattern.h"
#include "egress/http_request_head.h"

namespace paddock::egress {

inline constexpr std::uint16_t kProxyPort = 3128;  // on the sandbox's own 127.0.0.1
inline constexpr std::size_t kMaxConnections = 64;

struct EgressPolicy {
  AllowList allow;  // set_allowlist replaces it
  // Addresses no name may resolve to unless a range pattern of `allow` names them.
  std::vector<IpPrefix> forbidden;
  // Names answered with a fixed address instead of DNS: tests only (a local TLS server under a
  // name), from PADDOCK_EGRESS_TEST_RESOLVE in paddock's own environment, never the sandbox's.
  std::map<std::string, std::string> fixed_addresses;
};

// HTTP_PROXY and HTTPS_PROXY, in both cases, for the proxy at kProxyPort on the sandbox's own
// loopback. With `local_direct`, NO_PROXY (both cases) leaves that loopback direct, for a
// program's own servers; an installer has none, and goes through the proxy even to 127.0.0.1,
// which there means the host's (a mirror the operator named).
std::vector<std::string> proxy_env(bool local_direct);

class EgressProxy {
 public:
  // A proxy ready to serve; the error says why it could not be made (no file descriptors).
  static Result<std::unique_ptr<EgressProxy>> create(EgressPolicy policy);
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Starts accepting on `listener` (made by the sandbox's init). Once. Without a thread to
  // accept on it, the listener is closed: the sandbox's connections are refused, never let out.
  void serve(UniqueFd listener);
  // Ends every connection and joins every thread. Idempotent; the destructor does it too.
  void stop();
  // From now on, destinations are judged by `allow`, and every connection opened before is
  // ended: an installer's list never serves the program that runs after it.
  void set_allowlist(AllowList allow);
  // The record so far, which starts afresh.
  [[nodiscard]] EgressRecord take_record();

 private:
  explicit EgressProxy(EgressPolicy policy);
  struct Connection;
  void accept_loop();
  void handle(Connection& connection);
  // After a CONNECT's 200: whether the tunnel may go on. `first_bytes` holds what the client
  // sent so far, and gets what is read here.
  bool check_tunnel(int client, const RequestHead& head, bool literal, std::string& first_bytes);
  // Plain HTTP: sends `head`'s request (its head at the start of `buffer`) and its body, then
  // each further request on the connection, as long as each is for the same host and port.
  void forward_requests(int client, int upstream, RequestHead head, std::string& buffer);
  void deny(const std::string& host, std::uint16_t port, const std::string& reason);
  void reached(const std::string& host, std::uint16_t port);
  void note(std::vector<Destination>& list, Destination destination);

  EgressPolicy policy_;  // its `allow` moves to allow_
  std::shared_ptr<const AllowList> allow_;
  UniqueFd listener_;
  UniqueFd wake_read_, wake_write_;  // stop() wakes the accept loop
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;
  // Bumped by set_allowlist: a connection accepted under an older list goes no further.
  std::uint64_t generation_ = 0;
  EgressRecord record_;
};

}  // namespace paddock::egress
