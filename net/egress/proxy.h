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
// rebinding). A refusal is an HTTP 403 whose body names the host and why, and is recorded; a
// destination it may reach but cannot (the name does not resolve, the connect fails or times
// out) is a 502 saying why, and is recorded as unreachable.
//
// Written here rather than run as tinyproxy or squid per sandbox: neither checks a tunnel's
// TLS server name against its CONNECT target, nor refuses a name by what it resolves to, and
// both expect a listening address of their own rather than a socket made in another network
// namespace.
//
// What a sandbox can take from the server through it is bounded, because the proxy runs in the
// server's process and shares its descriptors, threads and process budget with everything else
// the server does (docs/security.md, "What a sandbox shares with the server through its
// proxy"):
// - one thread per proxy, an event loop over nonblocking sockets, whatever the sandbox opens:
//   no thread is started per connection, so a sandbox that fills the process budget cannot
//   make one fail to start (which would end the server), and connects never block;
// - name lookups on a few threads shared by every proxy (net/egress/name_resolver.h), at most
//   kLookupsPerSandbox of them at once for one sandbox;
// - kMaxConnectionsPerSandbox connections at once per sandbox, and server_connection_limit()
//   for every proxy of the process together, two descriptors each; what is over is answered
//   503 and closed;
// - when accept fails for want of descriptors (EMFILE, ENFILE), the loop waits kAcceptBackoff
//   before it tries again instead of polling the pending connection in a loop;
// - a connection's descriptors are closed as soon as it ends;
// - deadlines for the whole of what the client must send before a connection is judged: a
//   request head within kHeadDeadline, a tunnel's TLS ClientHello within kHandshakeDeadline
//   (a client sending a byte at a time holds nothing longer);
// - buffers of kRelayBuffer per direction, heads of 16 KiB, ClientHellos of 64 KiB;
// - a relayed connection through which nothing moved for its idle deadline is ended: a tunnel
//   or a plain-HTTP connection after EgressPolicy::idle (kRelayIdleDeadline), and an
//   intercepted one whose client has begun its handshake or a request and not finished it after
//   kHeadDeadline, as for a head (a 408 inside its TLS), so that a held body pins nothing for
//   long;
// - request bodies held whole (--secret-in-body) within kHeldBodiesPerSandbox for all of a
//   sandbox's connections (net/egress/held_body_budget.h);
// - at most kInterceptBurst TLS connections terminated at once for brokered secrets' hosts, and
//   kInterceptsPerSecond after that (a token bucket; over it, the CONNECT is answered 429): each
//   costs the server a TLS handshake with the sandbox and another with the real host, CPU that
//   is the server's, not the sandbox's (docs/security.md gives the figure).
//
// The loop is net/io/event_loop.h's, the previews' too: it watches at most
// 2 * kMaxConnectionsPerSandbox + 3 descriptors.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/ip_prefix.h"
#include "core/result.h"
#include "core/unique_fd.h"
#include "net/egress/brokered_secrets.h"
#include "net/egress/connection_budget.h"
#include "net/egress/egress_record.h"
#include "net/egress/held_body_budget.h"
#include "net/egress/host_consent.h"
#include "net/egress/host_pattern.h"
#include "net/egress/name_resolver.h"
#include "net/egress/tls_terminator.h"
#include "net/egress/token_bucket.h"
#include "net/http1/request_head.h"
#include "net/io/event_loop.h"

namespace paddock::net::egress {

inline constexpr std::uint16_t kProxyPort = 3128;  // on the sandbox's own 127.0.0.1
inline constexpr std::size_t kMaxConnectionsPerSandbox = 64;
inline constexpr std::size_t kLookupsPerSandbox = 2;
inline constexpr std::size_t kRelayBuffer = 64 * 1024;
inline constexpr std::chrono::seconds kHeadDeadline{30};
inline constexpr std::chrono::seconds kHandshakeDeadline{30};
inline constexpr std::chrono::milliseconds kAcceptBackoff{250};
// Long enough for an API that thinks for minutes before it answers (a model's completion that
// is not streamed); short enough that an abandoned connection does not hold its buffers for a
// session's whole life.
inline constexpr std::chrono::seconds kRelayIdleDeadline{300};
inline constexpr double kInterceptsPerSecond = 10;
// A sandbox may open all its connections at once (parallel downloads), then so many a second.
inline constexpr double kInterceptBurst = kMaxConnectionsPerSandbox;

struct EgressPolicy {
  AllowList allow;  // set_allowlist replaces it
  // Addresses no name may resolve to unless a range pattern of `allow` names them.
  std::vector<core::IpPrefix> forbidden;
  // Brokered secrets (net/egress/brokered_secrets.h): this sandbox's placeholders, and what
  // terminates TLS for their hosts, tunnels to which are intercepted (intercepted_tunnel.h).
  // Without them every tunnel is opaque.
  SandboxSecrets secrets;
  std::shared_ptr<TlsTerminator> tls;
  bool secrets_in_body = false;  // --secret-in-body: request bodies are substituted too
  // How long a relayed connection may see nothing move either way (tests shorten it).
  std::chrono::milliseconds idle = kRelayIdleDeadline;
  // Who is asked about a destination `allow` does not cover (set_consent replaces it); null:
  // such a destination is refused.
  std::shared_ptr<HostConsent> consent;
  bool installer = false;  // `allow` is an installer's: questions say the installer asked
};

// What a server brokers (docs/secrets.md): its secrets, and the terminator of TLS for their
// hosts. Each sandbox's proxy gets placeholders of its own for them (SandboxSecrets::draw).
struct SecretBroker {
  BrokeredSecretList secrets;  // null: no brokered secrets
  std::shared_ptr<TlsTerminator> tls;
  bool in_body = false;  // --secret-in-body
};

// HTTP_PROXY and HTTPS_PROXY, in both cases, for the proxy at kProxyPort on the sandbox's own
// loopback. With `local_direct`, NO_PROXY (both cases) leaves that loopback direct, for a
// program's own servers; an installer has none, and goes through the proxy even to 127.0.0.1,
// which there means the host's (a mirror the operator named). With `localhost_proxied` (a
// brokered secret is for localhost, SandboxSecrets::for_localhost), the name localhost is not in
// NO_PROXY: it goes to the proxy, which reaches the host's port the user named, and the
// program's own servers stay direct at 127.0.0.1 and ::1.
std::vector<std::string> proxy_env(bool local_direct, bool localhost_proxied = false);

class EgressProxy {
 public:
  // A proxy ready to serve; the error says why it could not be made (no file descriptors).
  static core::Result<std::unique_ptr<EgressProxy>> create(EgressPolicy policy);
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Starts serving on `listener` (made by the sandbox's init). Once. Without a thread for the
  // loop, the listener is closed: the sandbox's connections are refused, never let out.
  void serve(core::UniqueFd listener);
  // Ends every connection and joins the loop's thread, without waiting for a lookup or a
  // connect in flight. Idempotent; the destructor does it too.
  void stop();
  // From now on, destinations are judged by `allow` (an installer's list when `installer`), and
  // every connection opened before is ended by the time this returns: an installer's list never
  // serves the program that runs after it.
  void set_allowlist(AllowList allow, bool installer = false);
  // From now on, destinations the list does not cover are asked about through `consent` (null:
  // refused). A connection held for an answer keeps waiting for it.
  void set_consent(std::shared_ptr<HostConsent> consent);
  // The record so far, which starts afresh.
  [[nodiscard]] EgressRecord take_record();

 private:
  explicit EgressProxy(EgressPolicy policy);
  struct Connection;
  // The event loop: every connection of this proxy, on one thread.
  void run();
  // Ends the connections accepted under an allowlist replaced since.
  void apply_allowlist();
  void watch_connections(io::EventLoop& events);
  // A connection's side is ready: its bytes move, and it is advanced this turn.
  void on_client(Connection& connection, short events);
  void on_upstream(Connection& connection, short events);
  void accept_new(std::chrono::steady_clock::time_point now);
  void serve_lookups();
  // Moves `connection` on as far as the bytes and events so far allow.
  void advance(Connection& connection);
  void judge(Connection& connection);
  void ask_lookup(Connection& connection);
  void resolved(Connection& connection, const NameLookup& lookup);
  // A destination the list does not cover: held while the person is asked, before its name is
  // looked up.
  void ask_consent(Connection& connection);
  void start_lookup(Connection& connection);
  // Whether `address` is in a range no destination may reach unless the list names it.
  [[nodiscard]] bool reserved(const core::IpPrefix& address) const;
  void serve_consents();
  void connect_next(Connection& connection);
  void connected(Connection& connection);
  void sniff_tunnel(Connection& connection);
  // A tunnel to a brokered secret's host: its TLS is terminated from now on.
  void intercept(Connection& connection);
  void pump_intercepted(Connection& connection);
  void note_secrets(std::vector<SecretUse> uses);
  // A plain-http request's head: a placeholder in it goes out as it is, and is noted.
  void note_plain_http(const http1::RequestHead& head);
  void forward_requests(Connection& connection);
  void expire(Connection& connection, std::chrono::steady_clock::time_point now);
  // A relayed connection moved bytes at `now`: its idle deadline starts again.
  void keep_alive(Connection& connection, std::chrono::steady_clock::time_point now);
  // Its idle deadline passed: it ends.
  void idle_out(Connection& connection);
  // Ends an intercepted connection once what waits for its client has gone.
  void close_intercepted(Connection& connection);
  // `hint`: how the user could allow it (today's text when empty); `opened_by`: the setting
  // that opens a reserved address (Destination::opened_by).
  void refuse(Connection& connection, const std::string& reason, const std::string& hint = "",
              const std::string& opened_by = "");
  void deny(const std::string& host, std::uint16_t port, const std::string& reason,
            const std::string& opened_by = "");
  void reached(const std::string& host, std::uint16_t port);
  // Answers 502 saying why the destination could not be reached (`reason`: "the connection
  // failed: Connection refused") and records it as unreachable.
  void fail_upstream(Connection& connection, const std::string& reason);
  void note(std::vector<Destination>& list, Destination destination);

  EgressPolicy policy_;  // its `allow` moves to allow_
  core::UniqueFd listener_;
  std::optional<io::EventLoop> events_;  // stop() and set_allowlist() wake it
  std::shared_ptr<LookupQueue> lookups_;
  std::shared_ptr<ConsentMailbox> consents_;
  std::atomic<bool> stopping_{false};
  std::thread loop_;

  // The loop's alone.
  std::map<std::uint64_t, std::unique_ptr<Connection>> connections_;
  std::uint64_t next_id_ = 0;
  std::size_t lookups_running_ = 0;
  std::vector<std::uint64_t> lookups_waiting_;
  std::chrono::steady_clock::time_point accept_again_{};
  HeldBodyBudget held_bodies_;
  TokenBucket intercepts_{kInterceptsPerSecond, kInterceptBurst};

  mutable std::mutex mutex_;
  std::condition_variable applied_;
  std::shared_ptr<const AllowList> allow_;
  std::shared_ptr<HostConsent> consent_;
  bool installer_ = false;
  // Bumped by set_allowlist: a connection accepted under an older list goes no further, and
  // set_allowlist returns once the loop has ended those connections (applied_generation_).
  std::uint64_t generation_ = 0;
  std::uint64_t applied_generation_ = 0;
  bool looping_ = false;
  EgressRecord record_;
};

}  // namespace paddock::net::egress
