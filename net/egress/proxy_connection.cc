#include "net/egress/proxy_connection.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "core/special_addresses.h"
#include "net/egress/proxy_sockets.h"

namespace paddock::net::egress {
namespace {

constexpr const char* kAskedHint =
    "Only the user can allow a host, when asked or with --allow-host; a tool's arguments "
    "cannot.";

// A single address as a user writes it: without its /32 or /128.
std::string address_text(const core::IpPrefix& address) {
  std::string text = core::to_string(address);
  return text.substr(0, text.find('/'));
}

// Where a reserved address lies, for a refusal: "203.0.113.80, in 203.0.113.0/24 (documentation
// (TEST-NET-3))", or one of the host's own addresses (which no special block holds).
std::string where_reserved(const core::IpPrefix& address) {
  std::string text = address_text(address);
  auto block = core::refused_block_name(address);
  return text + (block ? ", in " + *block : ", one of this host's own addresses");
}

// The one setting that opens a reserved address: --allow-host alone does not (a name the user
// allowed may not lead into a reserved block).
std::string opening_flag(const core::IpPrefix& address) {
  return "--allow-private " + address_text(address);
}

std::string opening_hint(const core::IpPrefix& address) {
  return "The user can open it with " + opening_flag(address) +
         " (which loosens isolation); --allow-host does not open a reserved block.";
}

}  // namespace

// A connection's way from its first request's head to the relay, as its stages move it on.

void EgressProxy::advance(Connection& connection) {
  using Stage = Connection::Stage;
  switch (connection.stage) {
    case Stage::kHead: {
      connection.head = http1::parse_request_head(connection.from_client);
      if (connection.head.state == http1::RequestHead::State::kMalformed) {
        connection.close_with(
            response("400 Bad Request", "paddock's proxy: " + connection.head.error + "\n"));
      } else if (connection.head.state == http1::RequestHead::State::kComplete) {
        judge(connection);
      } else if (connection.client_ended) {
        connection.end();
      }
      return;
    }
    case Stage::kSniffing:
      sniff_tunnel(connection);
      // Passed: what it sent first goes upstream now, not when something next happens.
      if (connection.stage != Stage::kRelaying) return;
      break;
    case Stage::kRelaying:
      break;
    case Stage::kClosing:
      if (connection.to_client.empty()) connection.end();
      return;
    default:
      return;
  }
  if (connection.intercepted) {
    pump_intercepted(connection);
    return;
  }
  if (connection.head.tunnel) {
    std::size_t room = kRelayBuffer - std::min(kRelayBuffer, connection.to_upstream.size());
    std::size_t take = std::min(room, connection.from_client.size());
    connection.to_upstream.append(connection.from_client, 0, take);
    connection.from_client.erase(0, take);
    if (connection.client_ended && connection.from_client.empty()) connection.requests_ended = true;
  } else {
    forward_requests(connection);
  }
  // Each side's sending is shut once the other has ended and all it sent is passed on; the
  // connection ends when both are, or when the upstream has answered all it will and nothing
  // more of the client's is going there.
  if (connection.requests_ended && connection.to_upstream.empty() && !connection.upstream_shut) {
    shutdown(connection.upstream.get(), SHUT_WR);
    connection.upstream_shut = true;
  }
  if (connection.upstream_ended && connection.to_client.empty() && !connection.client_shut) {
    shutdown(connection.client.get(), SHUT_WR);
    connection.client_shut = true;
  }
  if (connection.client_shut && (connection.upstream_shut || !connection.head.tunnel)) {
    connection.end();
  }
}

void EgressProxy::refuse(Connection& connection, const std::string& reason, const std::string& hint,
                         const std::string& opened_by) {
  const http1::RequestHead& head = connection.head;
  deny(head.host, head.port, reason, opened_by);
  connection.close_with(response(
      "403 Forbidden",
      "paddock: " + head.host + ":" + std::to_string(head.port) + " is refused: " + reason + ". " +
          (hint.empty() ? "Only the hosts the user allowed (--allow-host) are reachable from "
                          "this sandbox."
                        : hint) +
          "\n"));
}

void EgressProxy::judge(Connection& connection) {
  const http1::RequestHead& head = connection.head;
  {
    std::lock_guard lock(mutex_);
    if (connection.generation != generation_) {
      connection.end();
      return;
    }
    connection.allow = allow_;
    connection.consent = consent_;
    connection.installer = installer_;
  }
  auto literal = core::parse_ip_prefix(head.host);
  connection.literal = literal.has_value();
  if (literal ? connection.allow->allows_address(*literal, head.port)
              : connection.allow->allows_name(head.host, head.port)) {
    connection.consent.reset();  // listed: nobody is asked
  } else if (!connection.consent) {
    // Where a secret is for localhost, that name goes to the proxy (proxy_env): a program that
    // meant its own server is told where that is.
    refuse(connection, "it is not in the allowlist",
           head.host == "localhost" && policy_.secrets.for_localhost()
               ? "localhost is the host's in this sandbox (a brokered secret is for one of its "
                 "ports, reached through the proxy): this sandbox's own servers are at 127.0.0.1."
               : "");
    return;
  } else if (auto known = connection.consent->known({head.host, head.port, connection.installer});
             known && !known->allowed) {
    refuse(connection, known->reason, kAskedHint);
    return;
  } else if (literal && reserved(*literal)) {
    // Refused whatever the answer: nobody is asked about it.
    refuse(connection, "it is " + where_reserved(*literal) + ", a reserved block",
           opening_hint(*literal), opening_flag(*literal));
    return;
  }
  // Each tunnel to a brokered secret's host will cost the server two TLS handshakes, on its
  // CPU rather than the sandbox's: so many a second, refused before anything is spent on it.
  if (head.tunnel && policy_.tls && policy_.secrets.brokers(head.host, head.port) &&
      !intercepts_.take(Clock::now())) {
    std::string reason = "this sandbox opens at most " +
                         std::to_string(static_cast<int>(kInterceptsPerSecond)) +
                         " TLS connections a second to brokered secrets' hosts, which the proxy "
                         "terminates (keep connections alive, or open fewer at once)";
    deny(head.host, head.port, reason);
    connection.close_with(response("429 Too Many Requests", "paddock's proxy: " + reason + "\n"));
    return;
  }
  // A name the list lacks is asked about before it is looked up: the lookup itself reaches the
  // name's servers (a way out for what is in the name), so none is made before the person says
  // yes, and none for a question the limits refuse.
  if (connection.consent) {
    ask_consent(connection);
    return;
  }
  start_lookup(connection);
}

bool EgressProxy::reserved(const core::IpPrefix& address) const {
  for (const auto& range : policy_.forbidden) {
    if (core::prefix_contains(range, address)) return true;
  }
  return false;
}

void EgressProxy::start_lookup(Connection& connection) {
  connection.stage = Connection::Stage::kResolving;
  connection.deadline = Clock::now() + kLookupTimeout;
  if (lookups_running_ < kLookupsPerSandbox) {
    ask_lookup(connection);
  } else {
    lookups_waiting_.push_back(connection.id);
  }
}

void EgressProxy::ask_lookup(Connection& connection) {
  const http1::RequestHead& head = connection.head;
  if (!lookups_->ask(connection.id, head.host, head.port)) {
    fail_upstream(connection,
                  "its name could not be resolved: no thread to resolve it on (the "
                  "process limit is reached)");
    return;
  }
  ++lookups_running_;
}

void EgressProxy::serve_lookups() {
  for (const auto& lookup : lookups_->take_answers()) {
    --lookups_running_;
    auto found = connections_.find(lookup.id);
    if (found != connections_.end() && found->second->stage == Connection::Stage::kResolving) {
      found->second->touched = true;
      resolved(*found->second, lookup);
    }
  }
  // Those that waited for a lookup of their own, in turn.
  while (lookups_running_ < kLookupsPerSandbox && !lookups_waiting_.empty()) {
    std::uint64_t id = lookups_waiting_.front();
    lookups_waiting_.erase(lookups_waiting_.begin());
    auto found = connections_.find(id);
    if (found != connections_.end() && found->second->stage == Connection::Stage::kResolving) {
      ask_lookup(*found->second);
    }
  }
}

void EgressProxy::resolved(Connection& connection, const NameLookup& lookup) {
  const http1::RequestHead& head = connection.head;
  if (lookup.error != 0) {
    fail_upstream(connection,
                  std::string("its name could not be resolved: ") + gai_strerror(lookup.error));
    return;
  }
  std::optional<core::IpPrefix> first_refused;
  std::size_t refused = 0;
  for (const auto& resolved : lookup.addresses) {
    auto address = prefix_of(reinterpret_cast<const sockaddr*>(&resolved.address));
    if (!address) continue;
    // A forbidden address is reached only through a range pattern that lies within a forbidden
    // range holding it ("127.0.0.1", "10.1.2.0/24"): "0.0.0.0/0" means the internet, not the
    // host's loopback.
    // A brokered secret's host is the user's own choice of name and port, whatever it resolves
    // to (a local API at localhost:8443): its TLS is terminated and the real host's
    // certificate checked before a byte of a request goes there.
    bool forbidden = false, opened = policy_.secrets.brokers(head.host, head.port);
    for (const auto& range : policy_.forbidden) {
      if (!core::prefix_contains(range, *address)) continue;
      forbidden = true;
      opened = opened || connection.allow->allows_address_within(*address, head.port, range);
    }
    if (forbidden && !opened) {
      // The refusal names one, an IPv4 address where there is one: the one users recognize.
      ++refused;
      if (!first_refused || (first_refused->family != AF_INET && address->family == AF_INET)) {
        first_refused = address;
      }
      continue;
    }
    connection.candidates.push_back(resolved);
  }
  if (connection.candidates.empty() && first_refused) {
    std::string others =
        refused > 1 ? " (and " + std::to_string(refused - 1) + " more reserved addresses)" : "";
    refuse(connection, "it resolves only to " + where_reserved(*first_refused) + others,
           opening_hint(*first_refused), opening_flag(*first_refused));
    return;
  }
  if (connection.candidates.empty()) {
    fail_upstream(connection, "its name resolved to no address paddock can connect to");
    return;
  }
  connect_next(connection);
}

// A reserved block stays refused whatever the answer: an address literal in one is refused
// before anyone is asked, and a name that resolves only into one after the person allowed it.
void EgressProxy::ask_consent(Connection& connection) {
  connection.stage = Connection::Stage::kAsking;
  connection.deadline = Clock::now() + connection.consent->patience() + std::chrono::seconds(5);
  std::weak_ptr<ConsentMailbox> mailbox = consents_;
  connection.consent->ask({connection.head.host, connection.head.port, connection.installer},
                          [mailbox, id = connection.id](const ConsentAnswer& answer) {
                            if (auto open = mailbox.lock()) open->post(id, answer);
                          });
}

void EgressProxy::serve_consents() {
  for (auto& [id, answer] : consents_->take()) {
    auto found = connections_.find(id);
    if (found == connections_.end() || found->second->stage != Connection::Stage::kAsking) {
      continue;
    }
    Connection& connection = *found->second;
    connection.touched = true;
    if (!answer.allowed) {
      refuse(connection, answer.reason, kAskedHint);
      continue;
    }
    if (answer.asked) {
      std::lock_guard lock(mutex_);
      note(record_.allowed_by_user, {connection.head.host, connection.head.port, answer.scope});
    }
    start_lookup(connection);
  }
}

void EgressProxy::connect_next(Connection& connection) {
  connection.upstream.reset();
  while (connection.next_candidate < connection.candidates.size()) {
    const ResolvedAddress& next = connection.candidates[connection.next_candidate++];
    const auto* address = reinterpret_cast<const sockaddr*>(&next.address);
    core::UniqueFd fd(socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) {
      connection.connect_error = errno;
      continue;
    }
    if (connect(fd.get(), address, next.length) == 0) {
      connection.upstream = std::move(fd);
      connected(connection);
      return;
    }
    if (errno != EINPROGRESS) {
      connection.connect_error = errno;
      continue;
    }
    connection.upstream = std::move(fd);
    connection.stage = Connection::Stage::kConnecting;
    connection.deadline = Clock::now() + kConnectTimeout;
    return;
  }
  fail_upstream(connection,
                std::string("the connection failed: ") + std::strerror(connection.connect_error));
}

void EgressProxy::connected(Connection& connection) {
  const http1::RequestHead& head = connection.head;
  connection.deadline = kNever;
  connection.from_client.erase(0, head.length);
  if (!head.tunnel) {
    note_plain_http(head);
    reached(head.host, head.port);
    connection.stage = Connection::Stage::kRelaying;
    keep_alive(connection, Clock::now());
    connection.to_upstream = http1::upstream_request_head(head);
    connection.body_left = head.content_length;
    return;
  }
  connection.to_client = "HTTP/1.1 200 Connection established\r\n\r\n";
  connection.stage = Connection::Stage::kSniffing;
  // A port the pattern names may carry any protocol, some of which wait for the server to
  // speak first; on 80 and 443 only TLS passes, and a TLS client speaks first.
  bool named_port = head.port != 80 && head.port != 443;
  auto now = Clock::now();
  connection.handshake_deadline = now + kHandshakeDeadline;
  connection.first_bytes_deadline = named_port ? now + kFirstBytesWait : kNever;
  connection.deadline = std::min(connection.first_bytes_deadline, connection.handshake_deadline);
}

void EgressProxy::sniff_tunnel(Connection& connection) {
  const http1::RequestHead& head = connection.head;
  bool named_port = head.port != 80 && head.port != 443;
  auto pass = [&] {
    reached(head.host, head.port);
    connection.stage = Connection::Stage::kRelaying;
    connection.deadline = kNever;
    keep_alive(connection, Clock::now());
  };
  std::string& first_bytes = connection.from_client;
  if (first_bytes.empty()) {
    // Ended before it said anything: on a named port that may be all its protocol wanted.
    if (connection.client_ended) named_port ? pass() : connection.end();
    return;
  }
  if (static_cast<unsigned char>(first_bytes[0]) != 0x16) {  // not a TLS handshake record
    if (named_port) return pass();
    deny(head.host, head.port, "the tunnel did not carry TLS");
    return connection.end();
  }
  ClientHelloName hello = client_hello_server_name(first_bytes);
  if (hello.state == ClientHelloName::State::kNeedMore) {
    if (connection.client_ended) connection.end();
    connection.deadline = connection.handshake_deadline;
    return;
  }
  if (hello.state == ClientHelloName::State::kMalformed) {
    deny(head.host, head.port, "the tunnel's TLS ClientHello is malformed");
    return connection.end();
  }
  // The TLS must be for the host the tunnel was opened to: no domain fronting. A literal
  // address is judged by its range alone.
  if (connection.literal) return pass();
  if (hello.state == ClientHelloName::State::kNone) {
    deny(head.host, head.port, "the tunnel's TLS named no server");
    return connection.end();
  }
  if (hello.name != head.host) {
    deny(hello.name, head.port,
         "its TLS went through a tunnel opened to " + head.host + " (domain fronting)");
    return connection.end();
  }
  pass();
  if (policy_.tls && policy_.secrets.brokers(head.host, head.port)) intercept(connection);
}

void EgressProxy::intercept(Connection& connection) {
  const http1::RequestHead& head = connection.head;
  auto sandbox_end = policy_.tls->serve(head.host);
  core::Result<std::unique_ptr<TlsEnd>> upstream_end = core::Error{EIO, ""};
  if (sandbox_end) upstream_end = policy_.tls->connect(head.host);
  if (!sandbox_end || !upstream_end) {
    // Never an opaque tunnel instead: the sandbox's placeholder would go out as it is, and the
    // sandbox expects the authority's certificate.
    deny(head.host, head.port,
         "its TLS could not be terminated for a brokered secret: " +
             (sandbox_end ? upstream_end.error() : sandbox_end.error()).message);
    return connection.end();
  }
  connection.intercepted = std::make_unique<InterceptedTunnel>(
      policy_.secrets, head.host, head.port, policy_.secrets_in_body, std::move(*sandbox_end),
      std::move(*upstream_end), &held_bodies_);
}

void EgressProxy::pump_intercepted(Connection& connection) {
  InterceptedTunnel& tunnel = *connection.intercepted;
  auto fate =
      tunnel.pump({connection.from_client, connection.to_client, connection.from_upstream,
                   connection.to_upstream, connection.client_ended, connection.upstream_ended});
  note_secrets(tunnel.take_uses());
  if (tunnel.upstream_failure() && fate != InterceptedTunnel::Fate::kGoesOn) {
    std::lock_guard lock(mutex_);
    note(record_.unreachable,
         {connection.head.host, connection.head.port, *tunnel.upstream_failure()});
  }
  if (fate == InterceptedTunnel::Fate::kGoesOn) {
    // Both sides gone with nothing more to say: nothing will wake this connection again.
    if (connection.client_ended && connection.upstream_ended && connection.to_client.empty() &&
        connection.to_upstream.empty()) {
      connection.end();
    }
    return;
  }
  close_intercepted(connection);
}

void EgressProxy::close_intercepted(Connection& connection) {
  // What waits for the client (an answer, an alert, the last of a response) goes, then the end.
  connection.requests_ended = true;
  connection.stage = Connection::Stage::kClosing;
  connection.deadline = Clock::now() + kRefusalDeadline;
  connection.idle_deadline = kNever;
  if (connection.to_client.empty()) connection.end();
}

void EgressProxy::keep_alive(Connection& connection, Clock::time_point now) {
  // The sandbox's own turn inside an intercepted connection (its handshake, or a request it has
  // begun) has the patience a head gets: a body held whole, or TLS state, pins nothing longer.
  bool clients_turn = connection.intercepted && connection.intercepted->awaits_client() &&
                      connection.to_upstream.empty();
  connection.idle_deadline =
      now + (clients_turn ? std::chrono::milliseconds(kHeadDeadline) : policy_.idle);
}

void EgressProxy::idle_out(Connection& connection) {
  if (!connection.intercepted || !connection.intercepted->awaits_client()) {
    connection.end();
    return;
  }
  (void)connection.intercepted->time_out(
      {connection.from_client, connection.to_client, connection.from_upstream,
       connection.to_upstream, connection.client_ended, connection.upstream_ended},
      kHeadDeadline);
  close_intercepted(connection);
}

void EgressProxy::forward_requests(Connection& connection) {
  const http1::RequestHead& first = connection.head;
  while (!connection.requests_ended) {
    if (connection.body_left > 0) {
      std::size_t room = kRelayBuffer - std::min(kRelayBuffer, connection.to_upstream.size());
      std::size_t take = static_cast<std::size_t>(
          std::min<std::uint64_t>({connection.body_left, connection.from_client.size(), room}));
      connection.to_upstream.append(connection.from_client, 0, take);
      connection.from_client.erase(0, take);
      connection.body_left -= take;
      if (connection.body_left > 0) {
        if (connection.client_ended && connection.from_client.empty()) {
          connection.requests_ended = true;
        }
        return;
      }
    }
    // The next request on the connection (keep-alive) must be for the same place: the
    // upstream connection was checked for it alone.
    http1::RequestHead next = http1::parse_request_head(connection.from_client);
    if (next.state == http1::RequestHead::State::kNeedMore) {
      if (connection.client_ended) {
        connection.requests_ended = true;
      } else if (connection.deadline == kNever) {
        connection.deadline = Clock::now() + kHeadDeadline;
      }
      return;
    }
    connection.deadline = kNever;
    if (next.state == http1::RequestHead::State::kMalformed) {
      connection.requests_ended = true;
      return;
    }
    if (next.tunnel || next.host != first.host || next.port != first.port) {
      deny(next.host, next.port,
           "a request on a connection opened to " + first.host + ":" + std::to_string(first.port));
      // The answers to what went before still reach the client, then the end.
      connection.requests_ended = true;
      return;
    }
    note_plain_http(next);
    connection.to_upstream += http1::upstream_request_head(next);
    connection.from_client.erase(0, next.length);
    connection.body_left = next.content_length;
  }
}

void EgressProxy::note_plain_http(const http1::RequestHead& head) {
  if (policy_.secrets.empty()) return;
  std::vector<SecretUse> uses;
  policy_.secrets.note_found(http1::upstream_request_head(head), head.host, head.port,
                             "sent as it is: plain http is never substituted", uses);
  note_secrets(std::move(uses));
}

void EgressProxy::expire(Connection& connection, Clock::time_point now) {
  using Stage = Connection::Stage;
  switch (connection.stage) {
    case Stage::kResolving:
      fail_upstream(connection, "its name could not be resolved in time");
      return;
    case Stage::kAsking:
      refuse(connection, "nobody answered in time", kAskedHint);
      return;
    case Stage::kConnecting:
      connection.connect_error = ETIMEDOUT;
      connect_next(connection);
      return;
    case Stage::kSniffing:
      if (connection.from_client.empty() && now < connection.handshake_deadline) {
        // No first byte in its time on a named port: a server-speaks-first protocol.
        connection.from_client.clear();
        reached(connection.head.host, connection.head.port);
        connection.stage = Stage::kRelaying;
        connection.deadline = kNever;
        keep_alive(connection, now);
        return;
      }
      deny(connection.head.host, connection.head.port,
           "its TLS ClientHello did not come within " + std::to_string(kHandshakeDeadline.count()) +
               " s");
      connection.end();
      return;
    case Stage::kRelaying:
      // No further request's head in its time: the answers so far still reach the client.
      connection.requests_ended = true;
      connection.deadline = kNever;
      advance(connection);
      return;
    default:  // a head that did not come in time, or a refusal nobody reads
      connection.end();
      return;
  }
}

}  // namespace paddock::net::egress
