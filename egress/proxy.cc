#include "egress/proxy.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

#include "core/text.h"
#include "egress/http_request_head.h"
#include "egress/tls_client_hello.h"

namespace paddock::egress {
namespace {

constexpr int kReadTimeoutMs = 30'000;     // for a request head or a ClientHello
constexpr int kConnectTimeoutMs = 10'000;  // to an upstream server
constexpr int kFirstBytesMs = 2'000;       // before a server-speaks-first protocol is assumed
constexpr std::size_t kChunk = 64 * 1024;

using Clock = std::chrono::steady_clock;

// Milliseconds left until `deadline`, at least 0.
int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

// More bytes from `fd` onto `buffer`; false at EOF, an error or the timeout.
bool read_more(int fd, std::string& buffer, int timeout_ms) {
  pollfd watched{fd, POLLIN, 0};
  int ready;
  while ((ready = poll(&watched, 1, timeout_ms)) < 0 && errno == EINTR) {
  }
  if (ready <= 0) return false;
  char chunk[16 * 1024];
  ssize_t got;
  while ((got = recv(fd, chunk, sizeof chunk, 0)) < 0 && errno == EINTR) {
  }
  if (got <= 0) return false;
  buffer.append(chunk, static_cast<std::size_t>(got));
  return true;
}

// A request head from `fd`, `buffer` holding what came already: the whole head within
// kReadTimeoutMs, so a client sending a byte at a time cannot hold a thread for days. kNeedMore
// when the client ended or ran out of time.
RequestHead read_head(int fd, std::string& buffer) {
  auto deadline = Clock::now() + std::chrono::milliseconds(kReadTimeoutMs);
  RequestHead head;
  while ((head = parse_request_head(buffer)).state == RequestHead::State::kNeedMore) {
    int left = ms_until(deadline);
    if (left == 0 || !read_more(fd, buffer, left)) break;
  }
  return head;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

void respond(int fd, const char* status, const std::string& body) {
  write_all(fd, std::string("HTTP/1.1 ") + status +
                    "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
                    "Content-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body);
}

// Copies `from` to `to` until EOF, then ends `to`'s sending side.
void pump(int from, int to) {
  char chunk[kChunk];
  for (;;) {
    ssize_t got = recv(from, chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || !write_all(to, std::string_view(chunk, static_cast<std::size_t>(got)))) break;
  }
  shutdown(to, SHUT_WR);
}

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

// A connected socket to `address`, or -errno; -ECANCELED as soon as `wake` is readable (the
// proxy is stopping), so that ending a run never waits on an address that drops packets.
int connect_to(const sockaddr* address, socklen_t length, int wake) {
  int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  if (connect(fd, address, length) != 0 && errno != EINPROGRESS) {
    int error = errno;
    close(fd);
    return -error;
  }
  pollfd watched[2] = {{fd, POLLOUT, 0}, {wake, POLLIN, 0}};
  int ready;
  while ((ready = poll(watched, 2, kConnectTimeoutMs)) < 0 && errno == EINTR) {
  }
  int error = ready == 0 ? ETIMEDOUT : watched[1].revents != 0 ? ECANCELED : 0;
  socklen_t size = sizeof error;
  if (error == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
  if (error != 0) {
    close(fd);
    return -error;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// The head of a plain HTTP request as it goes upstream: origin-form, without Proxy-* headers.
std::string upstream_head(const RequestHead& head, std::string_view original) {
  std::size_t line_end = original.find("\r\n");
  std::string_view line = original.substr(0, line_end);
  std::string out =
      head.method + " " + head.path + " " + std::string(line.substr(line.rfind(' ') + 1)) + "\r\n";
  for (std::size_t at = line_end + 2; at < head.length - 2;) {
    std::size_t next = original.find("\r\n", at);
    std::string_view header = original.substr(at, next - at);
    at = next + 2;
    if (to_lower(header.substr(0, header.find(':'))).starts_with("proxy-")) continue;
    out.append(header).append("\r\n");
  }
  return out + "\r\n";
}

}  // namespace

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
  std::uint64_t generation = 0;
  UniqueFd client;
  UniqueFd upstream;
  std::thread thread;
  std::atomic<bool> finished{false};

  // Wakes a thread blocked on either side; the fds stay open until the thread is joined.
  void end() const {
    if (client.valid()) shutdown(client.get(), SHUT_RDWR);
    if (upstream.valid()) shutdown(upstream.get(), SHUT_RDWR);
  }
};

EgressProxy::EgressProxy(EgressPolicy policy)
    : policy_(std::move(policy)),
      allow_(std::make_shared<const AllowList>(std::move(policy_.allow))) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::create(EgressPolicy policy) {
  std::unique_ptr<EgressProxy> proxy(new EgressProxy(std::move(policy)));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return system_error("starting the egress proxy");
  proxy->wake_read_.reset(pipe_fds[0]);
  proxy->wake_write_.reset(pipe_fds[1]);
  return proxy;
}

EgressProxy::~EgressProxy() {
  stop();
}

void EgressProxy::serve(UniqueFd listener) {
  if (acceptor_.joinable() || !listener.valid()) return;
  listener_ = std::move(listener);
  try {
    acceptor_ = std::thread([this] { accept_loop(); });
  } catch (const std::system_error&) {
    listener_.reset();
  }
}

void EgressProxy::stop() {
  if (stopping_.exchange(true)) return;
  if (wake_write_.valid()) (void)!write(wake_write_.get(), "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::unique_ptr<Connection>> connections;
  {
    std::lock_guard lock(mutex_);
    connections = std::move(connections_);
    for (auto& connection : connections) connection->end();
  }
  for (auto& connection : connections) {
    if (connection->thread.joinable()) connection->thread.join();
  }
  listener_.reset();
}

void EgressProxy::accept_loop() {
  for (;;) {
    pollfd watched[2] = {{listener_.get(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}};
    if (poll(watched, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (watched[1].revents != 0 || stopping_) return;
    UniqueFd client(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client.valid()) continue;
    std::lock_guard lock(mutex_);
    // Joins what has finished, so a long run's connections do not pile up.
    std::erase_if(connections_, [](const std::unique_ptr<Connection>& connection) {
      if (!connection->finished) return false;
      connection->thread.join();
      return true;
    });
    if (connections_.size() >= kMaxConnections) {
      respond(client.get(), "503 Service Unavailable",
              "paddock: this sandbox has " + std::to_string(kMaxConnections) +
                  " connections open through its proxy already\n");
      continue;
    }
    auto connection = std::make_unique<Connection>();
    connection->generation = generation_;
    connection->client = std::move(client);
    Connection* raw = connection.get();
    auto serve_one = [this, raw] {
      handle(*raw);
      // The client sees the end at once (a refusal says "Connection: close"); the fds are
      // closed when the thread is joined.
      {
        std::lock_guard ending(mutex_);
        raw->end();
      }
      raw->finished = true;
    };
    try {
      connection->thread = std::thread(serve_one);
    } catch (const std::system_error&) {
      respond(connection->client.get(), "503 Service Unavailable",
              "paddock: the proxy could not start a thread for this connection\n");
      continue;
    }
    connections_.push_back(std::move(connection));
  }
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

void EgressProxy::set_allowlist(AllowList allow) {
  std::lock_guard lock(mutex_);
  allow_ = std::make_shared<const AllowList>(std::move(allow));
  ++generation_;
  for (auto& connection : connections_) connection->end();
}

EgressRecord EgressProxy::take_record() {
  std::lock_guard lock(mutex_);
  return std::exchange(record_, {});
}

bool EgressProxy::check_tunnel(int client, const RequestHead& head, bool literal,
                               std::string& first_bytes) {
  // A port the pattern names may carry any protocol, some of which wait for the server to
  // speak first; on 80 and 443 only TLS passes, and a TLS client speaks first.
  bool named_port = head.port != 80 && head.port != 443;
  if (first_bytes.empty() &&
      !read_more(client, first_bytes, named_port ? kFirstBytesMs : kReadTimeoutMs)) {
    return named_port && !stopping_;
  }
  if (static_cast<unsigned char>(first_bytes[0]) != 0x16) {  // not a TLS handshake record
    if (named_port) return true;
    deny(head.host, head.port, "the tunnel did not carry TLS");
    return false;
  }
  ClientHelloName hello;
  while ((hello = client_hello_server_name(first_bytes)).state ==
         ClientHelloName::State::kNeedMore) {
    if (!read_more(client, first_bytes, kReadTimeoutMs)) return false;
  }
  if (hello.state == ClientHelloName::State::kMalformed) {
    deny(head.host, head.port, "the tunnel's TLS ClientHello is malformed");
    return false;
  }
  // The TLS must be for the host the tunnel was opened to: no domain fronting. A literal
  // address is judged by its range alone.
  if (literal) return true;
  if (hello.state == ClientHelloName::State::kNone) {
    deny(head.host, head.port, "the tunnel's TLS named no server");
    return false;
  }
  if (hello.name != head.host) {
    deny(hello.name, head.port,
         "its TLS went through a tunnel opened to " + head.host + " (domain fronting)");
    return false;
  }
  return true;
}

void EgressProxy::handle(Connection& connection) {
  int client = connection.client.get();
  std::string buffer;
  RequestHead head = read_head(client, buffer);
  if (head.state == RequestHead::State::kNeedMore) return;
  if (head.state == RequestHead::State::kMalformed) {
    respond(client, "400 Bad Request", "paddock's proxy: " + head.error + "\n");
    return;
  }
  std::string target = head.host + ":" + std::to_string(head.port);
  auto refuse = [&](const std::string& reason) {
    deny(head.host, head.port, reason);
    respond(client, "403 Forbidden",
            "paddock: " + target + " is refused: " + reason +
                ". Only the hosts the user allowed (--allow-host) are reachable from this "
                "sandbox.\n");
  };
  std::shared_ptr<const AllowList> allow;
  {
    std::lock_guard lock(mutex_);
    if (connection.generation != generation_) return;
    allow = allow_;
  }
  auto literal = parse_ip_prefix(head.host);
  if (literal ? !allow->allows_address(*literal, head.port)
              : !allow->allows_name(head.host, head.port)) {
    refuse("it is not in the allowlist");
    return;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(head.port);
  auto fixed = policy_.fixed_addresses.find(head.host);
  const char* lookup =
      fixed != policy_.fixed_addresses.end() ? fixed->second.c_str() : head.host.c_str();
  if (int error = getaddrinfo(lookup, port_text.c_str(), &hints, &found); error != 0) {
    respond(client, "502 Bad Gateway",
            "paddock's proxy could not resolve " + head.host + ": " + gai_strerror(error) + "\n");
    return;
  }
  int upstream = -ECONNREFUSED;
  bool any_permitted = false;
  for (addrinfo* entry = found; entry != nullptr && upstream < 0; entry = entry->ai_next) {
    auto address = prefix_of(entry->ai_addr);
    if (!address) continue;
    // A forbidden address is reached only through a range pattern that lies within a forbidden
    // range holding it ("127.0.0.1", "10.1.2.0/24"): "0.0.0.0/0" means the internet, not the
    // host's loopback.
    bool forbidden = false, opened = false;
    for (const auto& range : policy_.forbidden) {
      if (!prefix_contains(range, *address)) continue;
      forbidden = true;
      opened = opened || allow->allows_address_within(*address, head.port, range);
    }
    if (forbidden && !opened) continue;
    any_permitted = true;
    upstream = connect_to(entry->ai_addr, entry->ai_addrlen, wake_read_.get());
  }
  freeaddrinfo(found);
  if (!any_permitted) {
    refuse("it resolves only to loopback, private, link-local or this host's addresses");
    return;
  }
  if (upstream < 0) {
    respond(
        client, "502 Bad Gateway",
        "paddock's proxy could not connect to " + target + ": " + std::strerror(-upstream) + "\n");
    return;
  }
  {
    std::lock_guard lock(mutex_);
    connection.upstream.reset(upstream);
    // A list replaced while this connection was being judged no longer applies to it.
    if (stopping_ || connection.generation != generation_) return;
  }
  if (!head.tunnel) {
    reached(head.host, head.port);
    std::thread responses([client, upstream] { pump(upstream, client); });
    forward_requests(client, upstream, head, buffer);
    shutdown(upstream, SHUT_WR);
    responses.join();
    return;
  }
  std::string rest = buffer.substr(head.length);
  if (!write_all(client, "HTTP/1.1 200 Connection established\r\n\r\n")) return;
  if (!check_tunnel(client, head, literal.has_value(), rest)) return;
  reached(head.host, head.port);
  if (!write_all(upstream, rest)) return;
  std::thread outbound([client, upstream] { pump(client, upstream); });
  pump(upstream, client);
  outbound.join();
}

void EgressProxy::forward_requests(int client, int upstream, RequestHead head,
                                   std::string& buffer) {
  for (;;) {
    if (!write_all(upstream, upstream_head(head, buffer))) return;
    buffer.erase(0, head.length);
    for (std::uint64_t body = head.content_length; body > 0;) {
      if (buffer.empty() && !read_more(client, buffer, kReadTimeoutMs)) return;
      std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(body, buffer.size()));
      if (!write_all(upstream, std::string_view(buffer).substr(0, take))) return;
      buffer.erase(0, take);
      body -= take;
    }
    // The next request on the connection (keep-alive) must be for the same place: the
    // upstream connection was checked for it alone.
    RequestHead next = read_head(client, buffer);
    if (next.state != RequestHead::State::kComplete) return;
    if (next.tunnel || next.host != head.host || next.port != head.port) {
      deny(next.host, next.port,
           "a request on a connection opened to " + head.host + ":" + std::to_string(head.port));
      return;  // the answers to what went before still reach the client, then the end
    }
    head = std::move(next);
  }
}

}  // namespace paddock::egress
