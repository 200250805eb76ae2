#include "egress/proxy.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>
#include <system_error>
#include <utility>

#include "egress/http_request_head.h"
#include "egress/tls_client_hello.h"

namespace paddock::egress {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kConnectTimeout = 10s;   // to one upstream address
constexpr auto kLookupTimeout = 30s;    // for a name, however slow its DNS servers
constexpr auto kFirstBytesWait = 2s;    // before a server-speaks-first protocol is assumed
constexpr auto kRefusalDeadline = 10s;  // to hand a refusal to a client that does not read
constexpr std::size_t kAcceptsPerTurn = 16;
constexpr Clock::time_point kNever = Clock::time_point::max();

// Connections held by every proxy of the process (server_connection_limit()).
std::atomic<std::size_t> held_connections{0};

// A place in the server's budget of connections, given back when the connection ends.
class ServerSlot {
 public:
  ServerSlot() = default;
  static std::optional<ServerSlot> take() {
    std::size_t limit = server_connection_limit();
    std::size_t held = held_connections.load();
    do {
      if (held >= limit) return std::nullopt;
    } while (!held_connections.compare_exchange_weak(held, held + 1));
    ServerSlot slot;
    slot.taken_ = true;
    return slot;
  }
  ServerSlot(ServerSlot&& other) noexcept : taken_(std::exchange(other.taken_, false)) {}
  ServerSlot& operator=(ServerSlot&& other) noexcept {
    if (this != &other) {
      give_back();
      taken_ = std::exchange(other.taken_, false);
    }
    return *this;
  }
  ServerSlot(const ServerSlot&) = delete;
  ServerSlot& operator=(const ServerSlot&) = delete;
  ~ServerSlot() { give_back(); }

 private:
  void give_back() {
    if (std::exchange(taken_, false)) held_connections.fetch_sub(1);
  }

 private:
  bool taken_ = false;
};

std::optional<IpPrefix> prefix_of(const sockaddr* address) {
  IpPrefix prefix;
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    prefix.family = AF_INET;
    prefix.length = 32;
    std::memcpy(prefix.bytes.data(), &in->sin_addr, 4);
    return prefix;
  }
  if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    // An address that reaches an IPv4 address is judged as that one: IPv4-mapped
    // (::ffff:127.0.0.1), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16).
    const std::uint8_t* bytes = in6->sin6_addr.s6_addr;
    static constexpr std::uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
    const std::uint8_t* embedded = nullptr;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) || std::memcmp(bytes, kNat64, 12) == 0) {
      embedded = bytes + 12;
    } else if (bytes[0] == 0x20 && bytes[1] == 0x02) {
      embedded = bytes + 2;
    }
    if (embedded != nullptr) {
      prefix.family = AF_INET;
      prefix.length = 32;
      std::memcpy(prefix.bytes.data(), embedded, 4);
      return prefix;
    }
    prefix.family = AF_INET6;
    prefix.length = 128;
    std::memcpy(prefix.bytes.data(), &in6->sin6_addr, 16);
    return prefix;
  }
  return std::nullopt;
}

// Sends what it can of `bytes` without blocking and drops it from the front; false when the
// peer is gone (an error other than "would block").
bool send_some(int fd, std::string& bytes) {
  while (!bytes.empty()) {
    ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    bytes.erase(0, static_cast<std::size_t>(sent));
  }
  return true;
}

enum class ReadResult { kSome, kNothing, kEnd, kFailed };

// Reads up to `room` more bytes from `fd` onto `buffer` without blocking.
ReadResult receive_some(int fd, std::string& buffer, std::size_t room) {
  char chunk[16 * 1024];
  ssize_t got;
  while ((got = recv(fd, chunk, std::min(room, sizeof chunk), MSG_DONTWAIT)) < 0 &&
         errno == EINTR) {
  }
  if (got > 0) {
    buffer.append(chunk, static_cast<std::size_t>(got));
    return ReadResult::kSome;
  }
  if (got == 0) return ReadResult::kEnd;
  return errno == EAGAIN || errno == EWOULDBLOCK ? ReadResult::kNothing : ReadResult::kFailed;
}

std::string response(const char* status, const std::string& body) {
  return std::string("HTTP/1.1 ") + status +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// For a connection refused at the door: one try to say why, never a wait.
void answer_and_close(UniqueFd client, const char* status, const std::string& body) {
  std::string bytes = response(status, body);
  (void)send_some(client.get(), bytes);
}

// One side of a connection after poll: sends what waits for it, reads what it sent into `into`
// (at most `room`) while `reads()` says it may, and marks its end in `ended`. False when the
// side failed, or is gone (POLLERR) with nothing more to read from it: then the other side has
// no reason to stay either.
template <typename Reads>
bool serve_side(int fd, short events, std::string& outgoing, Reads reads, std::string& into,
                std::size_t room, bool& ended) {
  if ((events & POLLOUT) != 0 && !send_some(fd, outgoing)) return false;
  if ((events & (POLLIN | POLLHUP | POLLERR)) != 0 && reads()) {
    switch (receive_some(fd, into, room)) {
      case ReadResult::kEnd:
        ended = true;
        break;
      case ReadResult::kFailed:
        return false;
      default:
        break;
    }
  }
  return (events & POLLERR) == 0 || reads();
}

}  // namespace

std::size_t server_connection_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return kMaxConnectionsPerServer;
  }
  return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur / 8), 1,
                                 kMaxConnectionsPerServer);
}

std::size_t server_connections() {
  return held_connections.load();
}

std::vector<std::string> proxy_env(bool local_direct) {
  std::string proxy = "http://127.0.0.1:" + std::to_string(kProxyPort);
  std::vector<std::string> env = {"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy,
                                  "http_proxy=" + proxy, "https_proxy=" + proxy};
  const std::string local = "localhost,127.0.0.1,::1";
  if (local_direct) {
    env.push_back("NO_PROXY=" + local);
    env.push_back("no_proxy=" + local);
  }
  return env;
}

struct EgressProxy::Connection {
  enum class Stage {
    kHead,        // reading the first request's head
    kResolving,   // its host's name is being looked up (or waits for a lookup to start)
    kConnecting,  // a nonblocking connect to candidates[next_candidate - 1]
    kSniffing,    // a tunnel after its 200: reading what the client sends first (its ClientHello)
    kRelaying,    // bytes both ways; plain HTTP: each further request's head is checked
    kClosing,     // a refusal or error is being handed to the client; then the end
    kDone,
  };
  std::uint64_t id = 0;
  std::uint64_t generation = 0;
  ServerSlot slot;
  UniqueFd client;
  UniqueFd upstream;
  Stage stage = Stage::kHead;
  // When the present stage's wait ends: expire() says what then.
  Clock::time_point deadline = kNever;
  RequestHead head;  // the first request: where the connection goes
  std::shared_ptr<const AllowList> allow;
  bool literal = false;
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
    std::size_t cap = stage == Stage::kHead       ? kMaxRequestHead + 1
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
    return stage == Stage::kRelaying && !upstream_ended && to_client.size() < kRelayBuffer;
  }
};

EgressProxy::EgressProxy(EgressPolicy policy)
    : policy_(std::move(policy)),
      allow_(std::make_shared<const AllowList>(std::move(policy_.allow))) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::create(EgressPolicy policy) {
  std::unique_ptr<EgressProxy> proxy(new EgressProxy(std::move(policy)));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
    return system_error("starting the egress proxy");
  proxy->wake_read_.reset(pipe_fds[0]);
  proxy->wake_write_.reset(pipe_fds[1]);
  auto lookups = LookupQueue::create();
  if (!lookups) return lookups.error();
  proxy->lookups_ = std::move(*lookups);
  return proxy;
}

EgressProxy::~EgressProxy() {
  stop();
}

void EgressProxy::serve(UniqueFd listener) {
  if (loop_.joinable() || !listener.valid() || stopping_) return;
  // Accepted until the backlog is empty, each turn: never blocks the loop.
  fcntl(listener.get(), F_SETFL, fcntl(listener.get(), F_GETFL) | O_NONBLOCK);
  listener_ = std::move(listener);
  {
    std::lock_guard lock(mutex_);
    looping_ = true;
  }
  try {
    loop_ = std::thread([this] {
      try {
        run();
      } catch (const std::exception&) {
        // Out of memory in the loop: the sandbox loses its way out, the server nothing else.
      }
      connections_.clear();
      listener_.reset();  // the sandbox's connections are refused from now on, never let out
      std::lock_guard lock(mutex_);
      looping_ = false;
      applied_.notify_all();
    });
  } catch (const std::system_error&) {
    listener_.reset();
    std::lock_guard lock(mutex_);
    looping_ = false;
  }
}

void EgressProxy::stop() {
  if (stopping_.exchange(true)) return;
  if (wake_write_.valid()) (void)!write(wake_write_.get(), "x", 1);
  if (loop_.joinable()) loop_.join();
  connections_.clear();
  listener_.reset();
}

void EgressProxy::set_allowlist(AllowList allow) {
  std::unique_lock lock(mutex_);
  allow_ = std::make_shared<const AllowList>(std::move(allow));
  std::uint64_t generation = ++generation_;
  if (!looping_) {
    applied_generation_ = generation;
    return;
  }
  (void)!write(wake_write_.get(), "x", 1);
  applied_.wait(lock, [&] { return applied_generation_ >= generation || !looping_; });
}

EgressRecord EgressProxy::take_record() {
  std::lock_guard lock(mutex_);
  return std::exchange(record_, {});
}

void EgressProxy::note(std::vector<Destination>& list, Destination destination) {
  for (const auto& known : list) {
    if (known.host == destination.host && known.port == destination.port) return;
  }
  if (list.size() >= kMaxRecorded) {
    ++record_.dropped;
    return;
  }
  list.push_back(std::move(destination));
}

void EgressProxy::deny(const std::string& host, std::uint16_t port, const std::string& reason) {
  std::lock_guard lock(mutex_);
  note(record_.denied, {host, port, reason});
}

void EgressProxy::reached(const std::string& host, std::uint16_t port) {
  std::lock_guard lock(mutex_);
  note(record_.allowed, {host, port, ""});
}

void EgressProxy::run() {
  std::vector<pollfd> watched;
  // For each entry of `watched` past the first three: its connection, and whether it is the
  // upstream side.
  std::vector<std::pair<Connection*, bool>> owners;
  while (!stopping_) {
    // A list replaced since the last turn ends every connection accepted under an older one
    // before anything else happens to them, and set_allowlist learns it has.
    {
      std::lock_guard lock(mutex_);
      if (applied_generation_ != generation_) {
        for (auto& [id, connection] : connections_) {
          if (connection->generation != generation_) connection->end();
        }
        std::erase_if(connections_, [](const auto& entry) {
          return entry.second->stage == Connection::Stage::kDone;
        });
        applied_generation_ = generation_;
        applied_.notify_all();
      }
    }
    auto now = Clock::now();
    Clock::time_point wake_at = kNever;
    watched.clear();
    owners.clear();
    watched.push_back({wake_read_.get(), POLLIN, 0});
    watched.push_back({lookups_->ready_fd(), POLLIN, 0});
    bool accepting = now >= accept_again_;
    watched.push_back({accepting ? listener_.get() : -1, POLLIN, 0});
    if (!accepting) wake_at = accept_again_;
    for (auto& [id, connection] : connections_) {
      short client_events =
          (connection->reads_client() ? POLLIN : 0) | (connection->to_client.empty() ? 0 : POLLOUT);
      short upstream_events = 0;
      if (connection->upstream.valid()) {
        upstream_events =
            (connection->reads_upstream() ? POLLIN : 0) |
            (connection->to_upstream.empty() && connection->stage != Connection::Stage::kConnecting
                 ? 0
                 : POLLOUT);
      }
      // A side with nothing to wait for is left out: poll reports a hang-up even unasked, and
      // one that cannot be acted on yet would wake the loop at once, turn after turn.
      watched.push_back({client_events != 0 ? connection->client.get() : -1, client_events, 0});
      owners.emplace_back(connection.get(), false);
      watched.push_back(
          {upstream_events != 0 ? connection->upstream.get() : -1, upstream_events, 0});
      owners.emplace_back(connection.get(), true);
      wake_at = std::min(wake_at, connection->deadline);
    }
    int timeout = -1;
    if (wake_at != kNever) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(wake_at - now).count();
      timeout = static_cast<int>(std::clamp<std::int64_t>(left, 0, 60'000));
    }
    int ready = poll(watched.data(), watched.size(), timeout);
    if (ready < 0 && errno != EINTR) break;
    if (stopping_) break;
    if (ready > 0 && watched[0].revents != 0) {
      char drained[64];
      while (read(wake_read_.get(), drained, sizeof drained) > 0) {
      }
    }
    now = Clock::now();
    for (std::size_t i = 3; ready > 0 && i < watched.size(); ++i) {
      if (watched[i].revents == 0) continue;
      auto [connection, upstream_side] = owners[i - 3];
      if (connection->stage == Connection::Stage::kDone) continue;
      connection->touched = true;
      short events = watched[i].revents;
      bool failed = false;
      if (!upstream_side) {
        failed = !serve_side(
            connection->client.get(), events, connection->to_client,
            [&] { return connection->reads_client(); }, connection->from_client,
            connection->client_room(), connection->client_ended);
      } else if (connection->stage == Connection::Stage::kConnecting) {
        int error = 0;
        socklen_t size = sizeof error;
        if (getsockopt(connection->upstream.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) {
          error = errno;
        }
        if (error == 0) {
          connected(*connection);
        } else {
          connection->connect_error = error;
          connect_next(*connection);
        }
      } else {
        failed = !serve_side(
            connection->upstream.get(), events, connection->to_upstream,
            [&] { return connection->reads_upstream(); }, connection->to_client,
            kRelayBuffer - connection->to_client.size(), connection->upstream_ended);
      }
      if (failed) connection->end();
    }
    if (ready > 0 && watched[1].revents != 0) serve_lookups();
    for (auto& [id, connection] : connections_) {
      if (std::exchange(connection->touched, false) &&
          connection->stage != Connection::Stage::kDone) {
        advance(*connection);
      }
      if (connection->stage != Connection::Stage::kDone && now >= connection->deadline) {
        expire(*connection, now);
      }
    }
    // Ended connections give their descriptors back now, not when another one comes.
    std::erase_if(connections_, [](const auto& entry) {
      return entry.second->stage == Connection::Stage::kDone;
    });
    if (accepting && ready > 0 && watched[2].revents != 0) accept_new(now);
  }
}

void EgressProxy::accept_new(Clock::time_point now) {
  for (std::size_t turn = 0; turn < kAcceptsPerTurn; ++turn) {
    UniqueFd client(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!client.valid()) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) or anything else: the
      // connection stays in the backlog, and polling it again at once would fail again at
      // once, on a whole core. It is tried again after a pause.
      accept_again_ = now + kAcceptBackoff;
      return;
    }
    if (connections_.size() >= kMaxConnectionsPerSandbox) {
      answer_and_close(std::move(client), "503 Service Unavailable",
                       "paddock: this sandbox has " + std::to_string(kMaxConnectionsPerSandbox) +
                           " connections open through its proxy already\n");
      continue;
    }
    auto slot = ServerSlot::take();
    if (!slot) {
      answer_and_close(std::move(client), "503 Service Unavailable",
                       "paddock: the server holds " + std::to_string(server_connection_limit()) +
                           " connections through its sandboxes' proxies already\n");
      continue;
    }
    auto connection = std::make_unique<Connection>();
    connection->id = ++next_id_;
    connection->slot = std::move(*slot);
    connection->client = std::move(client);
    connection->deadline = now + kHeadDeadline;
    {
      std::lock_guard lock(mutex_);
      connection->generation = generation_;
    }
    connections_.emplace(connection->id, std::move(connection));
  }
}

void EgressProxy::advance(Connection& connection) {
  using Stage = Connection::Stage;
  switch (connection.stage) {
    case Stage::kHead: {
      connection.head = parse_request_head(connection.from_client);
      if (connection.head.state == RequestHead::State::kMalformed) {
        connection.close_with(
            response("400 Bad Request", "paddock's proxy: " + connection.head.error + "\n"));
      } else if (connection.head.state == RequestHead::State::kComplete) {
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

void EgressProxy::refuse(Connection& connection, const std::string& reason) {
  const RequestHead& head = connection.head;
  deny(head.host, head.port, reason);
  connection.close_with(response(
      "403 Forbidden", "paddock: " + head.host + ":" + std::to_string(head.port) +
                           " is refused: " + reason +
                           ". Only the hosts the user allowed (--allow-host) are reachable "
                           "from this sandbox.\n"));
}

void EgressProxy::judge(Connection& connection) {
  const RequestHead& head = connection.head;
  {
    std::lock_guard lock(mutex_);
    if (connection.generation != generation_) {
      connection.end();
      return;
    }
    connection.allow = allow_;
  }
  auto literal = parse_ip_prefix(head.host);
  connection.literal = literal.has_value();
  if (literal ? !connection.allow->allows_address(*literal, head.port)
              : !connection.allow->allows_name(head.host, head.port)) {
    refuse(connection, "it is not in the allowlist");
    return;
  }
  connection.stage = Connection::Stage::kResolving;
  connection.deadline = Clock::now() + kLookupTimeout;
  if (lookups_running_ < kLookupsPerSandbox) {
    ask_lookup(connection);
  } else {
    lookups_waiting_.push_back(connection.id);
  }
}

void EgressProxy::ask_lookup(Connection& connection) {
  const RequestHead& head = connection.head;
  if (!lookups_->ask(connection.id, head.host, head.port)) {
    connection.close_with(
        response("502 Bad Gateway", "paddock's proxy could not resolve " + head.host +
                                        ": no thread to resolve it on (the process limit is "
                                        "reached)\n"));
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
  const RequestHead& head = connection.head;
  if (lookup.error != 0) {
    connection.close_with(response("502 Bad Gateway", "paddock's proxy could not resolve " +
                                                          head.host + ": " +
                                                          gai_strerror(lookup.error) + "\n"));
    return;
  }
  for (const auto& resolved : lookup.addresses) {
    auto address = prefix_of(reinterpret_cast<const sockaddr*>(&resolved.address));
    if (!address) continue;
    // A forbidden address is reached only through a range pattern that lies within a forbidden
    // range holding it ("127.0.0.1", "10.1.2.0/24"): "0.0.0.0/0" means the internet, not the
    // host's loopback.
    bool forbidden = false, opened = false;
    for (const auto& range : policy_.forbidden) {
      if (!prefix_contains(range, *address)) continue;
      forbidden = true;
      opened = opened || connection.allow->allows_address_within(*address, head.port, range);
    }
    if (forbidden && !opened) continue;
    connection.candidates.push_back(resolved);
  }
  if (connection.candidates.empty()) {
    refuse(connection,
           "it resolves only to loopback, private, link-local or this host's addresses");
    return;
  }
  connect_next(connection);
}

void EgressProxy::connect_next(Connection& connection) {
  connection.upstream.reset();
  while (connection.next_candidate < connection.candidates.size()) {
    const ResolvedAddress& next = connection.candidates[connection.next_candidate++];
    const auto* address = reinterpret_cast<const sockaddr*>(&next.address);
    UniqueFd fd(socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
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
  const RequestHead& head = connection.head;
  connection.close_with(
      response("502 Bad Gateway", "paddock's proxy could not connect to " + head.host + ":" +
                                      std::to_string(head.port) + ": " +
                                      std::strerror(connection.connect_error) + "\n"));
}

void EgressProxy::connected(Connection& connection) {
  const RequestHead& head = connection.head;
  connection.deadline = kNever;
  connection.from_client.erase(0, head.length);
  if (!head.tunnel) {
    reached(head.host, head.port);
    connection.stage = Connection::Stage::kRelaying;
    connection.to_upstream = upstream_request_head(head);
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
  const RequestHead& head = connection.head;
  bool named_port = head.port != 80 && head.port != 443;
  auto pass = [&] {
    reached(head.host, head.port);
    connection.stage = Connection::Stage::kRelaying;
    connection.deadline = kNever;
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
}

void EgressProxy::forward_requests(Connection& connection) {
  const RequestHead& first = connection.head;
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
    RequestHead next = parse_request_head(connection.from_client);
    if (next.state == RequestHead::State::kNeedMore) {
      if (connection.client_ended) {
        connection.requests_ended = true;
      } else if (connection.deadline == kNever) {
        connection.deadline = Clock::now() + kHeadDeadline;
      }
      return;
    }
    connection.deadline = kNever;
    if (next.state == RequestHead::State::kMalformed) {
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
    connection.to_upstream += upstream_request_head(next);
    connection.from_client.erase(0, next.length);
    connection.body_left = next.content_length;
  }
}

void EgressProxy::expire(Connection& connection, Clock::time_point now) {
  using Stage = Connection::Stage;
  switch (connection.stage) {
    case Stage::kResolving:
      connection.close_with(response("502 Bad Gateway", "paddock's proxy could not resolve " +
                                                            connection.head.host + " in time\n"));
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

}  // namespace paddock::egress
