#include "net/preview/forwarder.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>

#include "net/http1/body_framing.h"
#include "net/preview/access.h"
#include "net/preview/headers.h"
#include "net/preview/socket_owner.h"
#include "net/preview/socket_request.h"

namespace paddock::net::preview {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kReplyDeadline{5};
constexpr std::size_t kRefusalsKept = 64;

// Bytes on their way in one direction: at most kPreviewBuffer waiting (a rebuilt head may
// take it past that for a moment: then there is no room until it is sent).
struct Pending {
  std::string bytes;
  std::size_t sent = 0;
  [[nodiscard]] std::size_t room() const {
    std::size_t waiting = bytes.size() - sent;
    return waiting >= kPreviewBuffer ? 0 : kPreviewBuffer - waiting;
  }
  [[nodiscard]] bool empty() const { return sent == bytes.size(); }
};

// Reads what `from` has, at most `most` bytes, into `into`; false on an error that ends the
// connection. `moved` counts the bytes.
bool receive(int from, std::string& into, std::size_t most, bool& eof, std::uint64_t& moved) {
  if (eof || most == 0) return true;
  static thread_local char scratch[kMaxPreviewResponseHead];
  ssize_t got = recv(from, scratch, std::min(most, sizeof scratch), MSG_DONTWAIT);
  if (got > 0) {
    into.append(scratch, static_cast<std::size_t>(got));
    moved += static_cast<std::size_t>(got);
  }
  if (got == 0) eof = true;
  return got >= 0 || errno == EAGAIN || errno == EINTR;
}

// Reads what `from` has, up to the room left; false on an error that ends the connection.
bool pump(int from, Pending& into, bool& eof, std::uint64_t& moved) {
  if (into.empty()) {
    into.bytes.clear();
    into.sent = 0;
  }
  return receive(from, into.bytes, into.room(), eof, moved);
}

// Writes what is waiting to `to` as far as it takes it; false on an error.
bool flush(int to, Pending& out, std::uint64_t& moved) {
  while (!out.empty()) {
    ssize_t put = send(to, out.bytes.data() + out.sent, out.bytes.size() - out.sent,
                       MSG_DONTWAIT | MSG_NOSIGNAL);
    if (put < 0) return errno == EAGAIN || errno == EINTR;
    out.sent += static_cast<std::size_t>(put);
    moved += static_cast<std::size_t>(put);
  }
  return true;
}

// The socket a factory sent is what the protocol says, or it is not used: a TCP socket of the
// IPv4 family, not connected yet.
bool is_fresh_tcp_socket(int fd) {
  int domain = 0, type = 0, protocol = 0;
  socklen_t size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0 || domain != AF_INET) return false;
  size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) return false;
  size = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &size) != 0 || protocol != IPPROTO_TCP) {
    return false;
  }
  sockaddr_in peer{};
  socklen_t peer_size = sizeof peer;
  return getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 && errno == ENOTCONN;
}

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

Result<UniqueFd> listen_on(std::uint16_t port) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return system_error("making a preview's listening socket");
  sockaddr_in address = loopback(port);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return system_error("binding 127.0.0.1:" + std::to_string(port));
  }
  if (listen(fd.get(), 128) != 0) return system_error("listening on a preview's port");
  return fd;
}

}  // namespace

Result<PreviewPortRange> parse_preview_ports(std::string_view text) {
  auto number = [](std::string_view digits) -> std::optional<std::uint16_t> {
    if (digits.empty() || digits.size() > 5) return std::nullopt;
    unsigned value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return std::nullopt;
    return static_cast<std::uint16_t>(value);
  };
  std::size_t dash = text.find('-');
  auto first = number(text.substr(0, dash));
  auto last = dash == std::string_view::npos ? first : number(text.substr(dash + 1));
  if (!first || !last || *last < *first) {
    return invalid_input("preview ports '" + std::string(text) +
                         "': write one port or a range, FIRST-LAST, of ports 1 to 65535 (e.g. "
                         "8000-8099)");
  }
  return PreviewPortRange{*first, *last};
}

Result<PreviewPublish> parse_preview_publish(std::string_view text) {
  PreviewPublish publish;
  std::string_view rest = text;
  if (rest.size() > 4 && rest.substr(rest.size() - 4) == "/tcp") {
    publish.protocol = PreviewProtocol::kTcp;
    rest.remove_suffix(4);
  }
  std::size_t colon = rest.find(':');
  auto host = colon == std::string_view::npos ? Result<PreviewPortRange>(PreviewPortRange{})
                                              : parse_preview_ports(rest.substr(0, colon));
  auto port = parse_preview_ports(colon == std::string_view::npos ? rest : rest.substr(colon + 1));
  bool single = host && port && host->first == host->last && port->first == port->last &&
                rest.find('-') == std::string_view::npos;
  if (!single) {
    return invalid_input("--publish '" + std::string(text) +
                         "': write [HOSTPORT:]PORT[/tcp], e.g. 8000 or 9000:8000 (PORT is the "
                         "sandbox's)");
  }
  publish.host_port = host->first;
  publish.port = port->first;
  return publish;
}

struct PreviewForwarder::Group {
  UniqueFd factory;
  std::deque<std::uint64_t> waiting;  // connections asking, in the order init answers
};

struct PreviewForwarder::Preview {
  std::string group;
  std::uint16_t sandbox_port = 0;
  std::uint16_t host_port = 0;
  PreviewProtocol protocol = PreviewProtocol::kHttp;
  std::string token;
  UniqueFd listener;
  std::optional<std::pair<bool, std::string>> probe;  // accepting, why not
  PreviewGrants grants;  // HTTP: what its server set (net/preview/headers.h)
};

struct PreviewForwarder::Connection {
  enum class State { kHead, kReply, kWaitSocket, kConnecting, kRelay };
  std::uint64_t id = 0;
  std::uint64_t preview = 0;
  State state = State::kHead;
  bool probe = false;  // open()'s: does anything accept?
  bool done = false;
  UniqueFd client, upstream;
  Pending to_sandbox, to_client;
  bool client_eof = false, sandbox_eof = false;
  bool sandbox_shut = false, client_shut = false;
  // kRelay of HTTP: one request per connection (net/preview/headers.h). Its body goes
  // through `body`; once it is whole the client's later bytes are not relayed. The sandbox's
  // bytes are read into `response_head` until the response's head is whole and rebuilt. `raw`:
  // a byte relay both ways (plain TCP, or a WebSocket once its server answered 101).
  bool raw = false;
  bool upgrade = false;  // the request asked for another protocol
  std::optional<http1::BodyFraming> body;
  bool request_done = false;
  bool response_head_done = false;
  std::string response_head;
  std::uint64_t moved = 0;  // bytes either way, for the idle deadline
  Clock::time_point deadline{};
};

PreviewForwarder::PreviewForwarder(uid_t owner, PreviewPortRange ports, PreviewLimits limits)
    : owner_(owner), ports_(ports), limits_(limits) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    wake_read_.reset(pipe_fds[0]);
    wake_write_.reset(pipe_fds[1]);
  }
}

PreviewForwarder::~PreviewForwarder() {
  stop();
}

void PreviewForwarder::wake() {
  char byte = 1;
  [[maybe_unused]] ssize_t ignored = write(wake_write_.get(), &byte, 1);
}

void PreviewForwarder::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !loop_.joinable()) return;
    stopping_ = true;
  }
  wake();
  if (loop_.joinable()) loop_.join();
  std::lock_guard lock(mutex_);
  connections_.clear();
  previews_.clear();
  groups_.clear();
  changed_.notify_all();
}

bool PreviewForwarder::has_group(const std::string& group) {
  std::lock_guard lock(mutex_);
  return groups_.count(group) != 0;
}

std::vector<std::string> PreviewForwarder::refusals() {
  std::lock_guard lock(mutex_);
  return refusals_;
}

void PreviewForwarder::note_refusal(const std::string& why) {
  if (refusals_.size() >= kRefusalsKept) refusals_.erase(refusals_.begin());
  refusals_.push_back(why);
}

Result<PreviewOpened> PreviewForwarder::open(const std::string& group, UniqueFd factory,
                                             std::uint16_t sandbox_port, PreviewProtocol protocol,
                                             std::uint16_t host_port) {
  if (sandbox_port == 0) return invalid_input("port 0 is not a port to preview: name 1 to 65535");
  std::unique_lock lock(mutex_);
  if (stopping_) return Error{ECANCELED, "the server is stopping"};
  if (!wake_read_.valid()) return Error{EMFILE, "previews: no descriptors for the loop's pipe"};
  if (groups_.count(group) == 0) {
    if (!factory.valid()) {
      return Error{ENOTSUP, "this session's sandbox makes no preview sockets"};
    }
    auto made = std::make_unique<Group>();
    made->factory = std::move(factory);
    groups_[group] = std::move(made);
  }
  // Each preview holds a port of the host and a socket's worth of the sandbox's (the probe's
  // way in): without a cap, a loop of expose_port calls took a network namespace's whole
  // ephemeral port range.
  std::size_t in_group = static_cast<std::size_t>(
      std::count_if(previews_.begin(), previews_.end(),
                    [&](const auto& item) { return item.second->group == group; }));
  if (in_group >= limits_.previews_per_session) {
    return Error{EMFILE, "this session has " + std::to_string(in_group) +
                             " previews open, the most a session may have: use one of them, or "
                             "close the session to end them"};
  }
  if (previews_.size() >= limits_.previews) {
    return Error{EMFILE, "the server has " + std::to_string(previews_.size()) +
                             " previews open, the most it allows: close a session to end its "
                             "previews, or start the server with a higher --max-previews"};
  }
  Result<UniqueFd> listener = Error{EADDRINUSE, ""};
  if (host_port != 0) {
    listener = listen_on(host_port);
    if (!listener) return listener.error().context("opening a preview on the port asked for");
  } else if (ports_.first == 0) {
    listener = listen_on(0);
  } else {
    for (unsigned port = ports_.first; port <= ports_.last; ++port) {
      listener = listen_on(static_cast<std::uint16_t>(port));
      if (listener || listener.error().code != EADDRINUSE) break;
    }
    if (!listener && listener.error().code == EADDRINUSE) {
      return Error{EADDRINUSE, "every port of the preview range " + std::to_string(ports_.first) +
                                   "-" + std::to_string(ports_.last) +
                                   " is taken: close a preview or widen --preview-ports"};
    }
  }
  if (!listener) return listener.error().context("opening a preview");
  sockaddr_in bound{};
  socklen_t size = sizeof bound;
  getsockname(listener->get(), reinterpret_cast<sockaddr*>(&bound), &size);
  auto preview = std::make_unique<Preview>();
  preview->group = group;
  preview->sandbox_port = sandbox_port;
  preview->host_port = ntohs(bound.sin_port);
  preview->protocol = protocol;
  preview->listener = std::move(*listener);
  if (protocol == PreviewProtocol::kHttp) {
    auto token = new_preview_token();
    if (!token) return token.error();
    preview->token = std::move(*token);
  }
  std::uint64_t id = next_id_++;
  Preview& opened = *previews_.emplace(id, std::move(preview)).first->second;
  // One connection through the factory tells whether anything accepts on the sandbox's port.
  auto probe = std::make_unique<Connection>();
  probe->id = next_id_++;
  probe->preview = id;
  probe->probe = true;
  Connection& probing = *connections_.emplace(probe->id, std::move(probe)).first->second;
  ask_socket(probing);
  if (!loop_.joinable()) loop_ = std::thread([this] { run(); });
  wake();
  changed_.wait_for(lock, kPreviewConnectDeadline + std::chrono::seconds(1), [&] {
    return stopping_ || previews_.count(id) == 0 || previews_.at(id)->probe.has_value();
  });
  if (previews_.count(id) == 0) return Error{EPIPE, "the session ended as the preview opened"};
  PreviewOpened result;
  result.host_port = opened.host_port;
  result.url = protocol == PreviewProtocol::kHttp
                   ? preview_url(opened.host_port, opened.token)
                   : "tcp://127.0.0.1:" + std::to_string(opened.host_port);
  if (opened.probe) {
    result.accepting = opened.probe->first;
    result.probe = opened.probe->second;
  } else {
    result.probe = "the sandbox did not answer in time";
  }
  return result;
}

void PreviewForwarder::close_group(const std::string& group) {
  std::lock_guard lock(mutex_);
  for (auto it = previews_.begin(); it != previews_.end();) {
    if (it->second->group != group) {
      ++it;
      continue;
    }
    for (auto c = connections_.begin(); c != connections_.end();) {
      c = c->second->preview == it->first ? connections_.erase(c) : std::next(c);
    }
    it = previews_.erase(it);
  }
  groups_.erase(group);
  changed_.notify_all();
  wake();
}

void PreviewForwarder::ask_socket(Connection& connection) {
  connection.state = Connection::State::kWaitSocket;
  connection.deadline = Clock::now() + kPreviewConnectDeadline;
  auto preview = previews_.find(connection.preview);
  auto group = preview == previews_.end() ? groups_.end() : groups_.find(preview->second->group);
  if (group == groups_.end() || !group->second->factory.valid()) {
    finish(connection, false, "the session is gone");
    return;
  }
  std::uint8_t request = kPreviewSocketRequest;
  if (send(group->second->factory.get(), &request, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
    finish(connection, false,
           std::string("asking the sandbox for a socket: ") + std::strerror(errno));
    return;
  }
  group->second->waiting.push_back(connection.id);
}

void PreviewForwarder::take_socket(Group& group) {
  PreviewSocketAnswer answer;
  iovec part{&answer, sizeof answer};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
  header.msg_iov = &part;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t got = recvmsg(group.factory.get(), &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  UniqueFd socket_fd;
  for (cmsghdr* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
    if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_RIGHTS &&
        item->cmsg_len == CMSG_LEN(sizeof(int))) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(item), sizeof fd);
      socket_fd.reset(fd);
    }
  }
  if (got <= 0) {
    // The session's init is gone: so is every preview's way in.
    group.factory.reset();
    for (std::uint64_t id : group.waiting) {
      if (auto it = connections_.find(id); it != connections_.end()) {
        finish(*it->second, false, "the session is gone");
      }
    }
    group.waiting.clear();
    return;
  }
  if (group.waiting.empty()) return;  // an answer nobody asked for: dropped
  std::uint64_t id = group.waiting.front();
  group.waiting.pop_front();
  auto it = connections_.find(id);
  if (it == connections_.end() || it->second->done) return;
  Connection& connection = *it->second;
  if (got != static_cast<ssize_t>(sizeof answer) || answer.error != 0) {
    finish(connection, false,
           "the sandbox could not make a socket: " +
               std::string(std::strerror(answer.error != 0 ? answer.error : EPROTO)));
    return;
  }
  if (!socket_fd.valid() || !is_fresh_tcp_socket(socket_fd.get())) {
    finish(connection, false, "the sandbox sent something else than a new TCP socket");
    return;
  }
  fcntl(socket_fd.get(), F_SETFL, fcntl(socket_fd.get(), F_GETFL) | O_NONBLOCK);
  sockaddr_in target = loopback(previews_.at(connection.preview)->sandbox_port);
  connection.upstream = std::move(socket_fd);
  if (connect(connection.upstream.get(), reinterpret_cast<sockaddr*>(&target), sizeof target) ==
          0 ||
      errno == EINPROGRESS) {
    connection.state = Connection::State::kConnecting;
    return;
  }
  finish(connection, false, std::strerror(errno));
}

void PreviewForwarder::finish(Connection& connection, bool accepting, const std::string& why) {
  auto preview = previews_.find(connection.preview);
  if (connection.probe) {
    if (preview != previews_.end()) {
      preview->second->probe = {accepting, accepting ? "" : why};
    }
    connection.done = true;
    changed_.notify_all();
    return;
  }
  bool http = preview != previews_.end() && preview->second->protocol == PreviewProtocol::kHttp;
  if (!accepting && http && connection.state != Connection::State::kRelay &&
      connection.state != Connection::State::kReply) {
    connection.upstream.reset();
    connection.to_client = Pending{};
    connection.to_client.bytes = preview_response(
        "502 Bad Gateway", "nothing accepts connections on the sandbox's port " +
                               std::to_string(preview->second->sandbox_port) + " (" + why + ")");
    connection.state = Connection::State::kReply;
    connection.deadline = Clock::now() + kReplyDeadline;
    return;
  }
  connection.done = true;
}

void PreviewForwarder::refuse(Connection& connection, std::string response,
                              const std::string& why) {
  note_refusal(why);
  connection.to_client = Pending{};
  connection.to_client.bytes = std::move(response);
  connection.state = Connection::State::kReply;
  connection.deadline = Clock::now() + kReplyDeadline;
}

void PreviewForwarder::accept_on(Preview& preview, Clock::time_point now) {
  sockaddr_in peer{};
  socklen_t size = sizeof peer;
  UniqueFd client(accept4(preview.listener.get(), reinterpret_cast<sockaddr*>(&peer), &size,
                          SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!client.valid()) {
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      accept_again_ = now + kPreviewAcceptBackoff;
    }
    return;
  }
  sockaddr_in local{};
  size = sizeof local;
  getsockname(client.get(), reinterpret_cast<sockaddr*>(&local), &size);
  auto owner = loopback_peer_owner(peer, local);
  if (!owner || *owner != owner_) {
    std::string who = owner ? "uid " + std::to_string(*owner) : owner.error().message;
    note_refusal("port " + std::to_string(preview.host_port) + ": a connection from " + who +
                 ", not the server's user (uid " + std::to_string(owner_) + ")");
    if (preview.protocol == PreviewProtocol::kHttp) {
      std::string response =
          preview_response("403 Forbidden", "this preview belongs to another user");
      [[maybe_unused]] ssize_t ignored =
          send(client.get(), response.data(), response.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    return;
  }
  auto connection = std::make_unique<Connection>();
  connection->id = next_id_++;
  std::uint64_t preview_id = 0;
  for (const auto& [id, candidate] : previews_) {
    if (candidate.get() == &preview) preview_id = id;
  }
  connection->preview = preview_id;
  connection->client = std::move(client);
  Connection& accepted = *connections_.emplace(connection->id, std::move(connection)).first->second;
  if (preview.protocol == PreviewProtocol::kHttp) {
    accepted.state = Connection::State::kHead;
    accepted.deadline = now + kPreviewHeadDeadline;
  } else {
    ask_socket(accepted);
  }
}

void PreviewForwarder::advance(Connection& connection) {
  using State = Connection::State;
  switch (connection.state) {
    case State::kHead: {
      Preview& preview = *previews_.at(connection.preview);
      if (!pump(connection.client.get(), connection.to_sandbox, connection.client_eof,
                connection.moved)) {
        connection.done = true;
        return;
      }
      auto verdict =
          judge_preview_request(connection.to_sandbox.bytes, preview.host_port, preview.token);
      using Kind = PreviewVerdict::Kind;
      if (verdict.kind == Kind::kNeedMore) {
        if (connection.client_eof) connection.done = true;
        return;
      }
      if (verdict.kind == Kind::kRefuse) {
        refuse(connection, std::move(verdict.response),
               "port " + std::to_string(preview.host_port) + ": " + verdict.reason);
      } else if (verdict.kind == Kind::kRedirect) {
        connection.to_client = Pending{};
        connection.to_client.bytes = std::move(verdict.response);
        connection.state = State::kReply;
        connection.deadline = Clock::now() + kReplyDeadline;
      } else {
        forward_request(connection, std::move(verdict.head));
      }
      return;
    }
    case State::kReply:
      if (!flush(connection.client.get(), connection.to_client, connection.moved) ||
          connection.to_client.empty()) {
        shutdown(connection.client.get(), SHUT_WR);
        connection.done = true;
      }
      return;
    case State::kWaitSocket:
      return;
    case State::kConnecting: {
      int error = 0;
      socklen_t size = sizeof error;
      getsockopt(connection.upstream.get(), SOL_SOCKET, SO_ERROR, &error, &size);
      if (error != 0) {
        finish(connection, false, std::strerror(error));
        return;
      }
      if (connection.probe) {
        finish(connection, true, "");
        return;
      }
      connection.state = State::kRelay;
      connection.raw = previews_.at(connection.preview)->protocol == PreviewProtocol::kTcp;
      connection.deadline = Clock::now() + limits_.idle;
      relay(connection);
      return;
    }
    case State::kRelay:
      relay(connection);
      return;
  }
}

void PreviewForwarder::forward_request(Connection& connection, http1::RequestHead head) {
  Preview& preview = *previews_.at(connection.preview);
  std::string rest = connection.to_sandbox.bytes.substr(head.length);
  connection.upgrade = asks_upgrade(head);
  connection.body =
      head.chunked ? http1::BodyFraming::chunked() : http1::BodyFraming::sized(head.content_length);
  std::size_t taken = connection.body->take(rest);
  if (connection.body->state() == http1::BodyFraming::State::kMalformed) {
    refuse(connection,
           preview_response("400 Bad Request",
                            "a malformed request body: " + connection.body->error()),
           "port " + std::to_string(preview.host_port) + ": a malformed request body");
    return;
  }
  connection.request_done = connection.body->state() == http1::BodyFraming::State::kDone;
  // The sandbox gets the head rebuilt (net/preview/headers.h), then what came of the body;
  // bytes past the body (a pipelined request) are not its to see.
  connection.to_sandbox = Pending{};
  connection.to_sandbox.bytes = preview_request_head(head, preview.grants) + rest.substr(0, taken);
  ask_socket(connection);
}

bool PreviewForwarder::read_response_head(Connection& connection, Preview& preview) {
  auto bad = [&](const std::string& why) {
    std::string line =
        "port " + std::to_string(preview.host_port) + ": the sandbox's server " + why;
    if (connection.to_client.sent == 0 && connection.to_client.empty()) {
      connection.upstream.reset();
      refuse(
          connection,
          preview_response("502 Bad Gateway", "the sandbox's server on port " +
                                                  std::to_string(preview.sandbox_port) + " " + why),
          line);
    } else {
      note_refusal(line);
      connection.done = true;
    }
    return false;
  };
  while (!connection.response_head_done) {
    PreviewResponseHead head = parse_preview_response_head(connection.response_head);
    if (head.state == PreviewResponseHead::State::kNeedMore) {
      if (connection.sandbox_eof) return bad("closed the connection before its response head");
      return true;
    }
    if (head.state == PreviewResponseHead::State::kMalformed) {
      return bad("sent a malformed response head: " + head.error);
    }
    if (head.status == 101 && !connection.upgrade) {
      return bad("answered 101 to a request for no other protocol");
    }
    connection.to_client.bytes += preview_response_head(head, preview.grants);
    connection.response_head.erase(0, head.length);
    if (head.status == 101) connection.raw = true;
    // A 1xx other than 101 is an interim answer: the next head follows.
    connection.response_head_done = head.status == 101 || head.status >= 200;
  }
  connection.to_client.bytes += connection.response_head;
  connection.response_head = std::string();
  return true;
}

void PreviewForwarder::relay(Connection& connection) {
  int client = connection.client.get();
  int sandbox = connection.upstream.get();
  std::uint64_t before = connection.moved;
  bool ok = true;
  // To the sandbox: everything (raw), or the request's body alone.
  if (connection.raw) {
    ok = pump(client, connection.to_sandbox, connection.client_eof, connection.moved);
  } else if (!connection.request_done) {
    std::string got;
    if (connection.to_sandbox.empty()) connection.to_sandbox = Pending{};
    ok =
        receive(client, got, connection.to_sandbox.room(), connection.client_eof, connection.moved);
    std::size_t taken = connection.body->take(got);
    if (connection.body->state() == http1::BodyFraming::State::kMalformed) ok = false;
    connection.request_done = connection.body->state() == http1::BodyFraming::State::kDone;
    connection.to_sandbox.bytes.append(got, 0, taken);
  } else if (!connection.client_eof) {
    // The request is whole: what the client sends next is not the sandbox's (a pipelined
    // request goes unanswered: the response says close), and its end means it went away, as a
    // reverse proxy reads it: its connection ends now, not at the idle deadline.
    std::string dropped;
    std::uint64_t ignored = 0;
    ok = receive(client, dropped, kPreviewBuffer, connection.client_eof, ignored);
    if (connection.client_eof) {
      connection.done = true;
      return;
    }
  }
  ok = ok && flush(sandbox, connection.to_sandbox, connection.moved);
  // To the client: the response's head rebuilt first, then as it comes.
  if (ok && (connection.raw || connection.response_head_done)) {
    ok = pump(sandbox, connection.to_client, connection.sandbox_eof, connection.moved);
  } else if (ok) {
    ok = receive(sandbox, connection.response_head,
                 kMaxPreviewResponseHead - connection.response_head.size(), connection.sandbox_eof,
                 connection.moved);
    if (ok && !read_response_head(connection, *previews_.at(connection.preview))) return;
  }
  ok = ok && flush(client, connection.to_client, connection.moved);
  if (!ok) {
    connection.done = true;
    return;
  }
  if (connection.moved != before) connection.deadline = Clock::now() + limits_.idle;
  // A side that finished sending is told so once what it sent is through: a half-closed
  // connection (a client that shuts its writing side and waits for the answer) still works.
  if (connection.client_eof && connection.to_sandbox.empty() && !connection.sandbox_shut) {
    shutdown(sandbox, SHUT_WR);
    connection.sandbox_shut = true;
  }
  bool answered = connection.raw || connection.response_head_done;
  if (connection.sandbox_eof && answered && connection.to_client.empty() &&
      !connection.client_shut) {
    shutdown(client, SHUT_WR);
    connection.client_shut = true;
  }
  // An HTTP request's connection ends with its response (Connection: close).
  if (connection.client_shut && (connection.sandbox_shut || !connection.raw)) {
    connection.done = true;
  }
}

bool PreviewForwarder::has_room(const Preview& preview) const {
  std::size_t all = 0, in_group = 0, here = 0;
  for (const auto& [id, connection] : connections_) {
    if (connection->probe) continue;
    ++all;
    auto owner = previews_.find(connection->preview);
    if (owner == previews_.end()) continue;
    if (owner->second.get() == &preview) ++here;
    if (owner->second->group == preview.group) ++in_group;
  }
  return all < limits_.connections && in_group < limits_.connections_per_session &&
         here < limits_.connections_per_preview;
}

void PreviewForwarder::run() {
  using State = Connection::State;
  std::unique_lock lock(mutex_);
  // What each polled descriptor is: 0 the wake pipe, 1 a listener, 2 a factory, 3 a client,
  // 4 a connection's way into the sandbox; by id (a group by name), looked up again after the
  // poll, since the lock is let go meanwhile.
  struct Watched {
    int what;
    std::uint64_t id;
    std::string group;
  };
  std::vector<pollfd> polled;
  std::vector<Watched> watched;
  while (!stopping_) {
    auto now = Clock::now();
    Clock::time_point next = now + std::chrono::seconds(1);
    for (auto& [id, connection] : connections_) {
      if (connection->done) continue;
      if (now >= connection->deadline) {
        if (connection->state == State::kRelay) {
          // However the sandbox's server keeps it open: its slot goes back for the others.
          auto preview = previews_.find(connection->preview);
          note_refusal(
              "port " +
              std::to_string(preview == previews_.end() ? 0 : preview->second->host_port) +
              ": a connection idle for " +
              std::to_string(
                  std::chrono::duration_cast<std::chrono::milliseconds>(limits_.idle).count()) +
              " ms was closed");
          connection->done = true;
        } else if (connection->state == State::kHead) {
          refuse(*connection,
                 preview_response("408 Request Timeout", "the request head came too slowly"),
                 "a request head came too slowly");
        } else if (connection->state == State::kReply) {
          connection->done = true;
        } else {
          finish(*connection, false, "the sandbox did not answer in time");
        }
      }
      next = std::min(next, connection->deadline);
    }
    for (auto it = connections_.begin(); it != connections_.end();) {
      it = it->second->done ? connections_.erase(it) : std::next(it);
    }
    polled.clear();
    watched.clear();
    polled.push_back({wake_read_.get(), POLLIN, 0});
    watched.push_back({0, 0, {}});
    if (now >= accept_again_) {
      // A listener at its preview's or session's cap waits (its clients in its backlog); every
      // other is polled, whatever that preview's connections do.
      for (auto& [id, preview] : previews_) {
        if (!has_room(*preview)) continue;
        polled.push_back({preview->listener.get(), POLLIN, 0});
        watched.push_back({1, id, {}});
      }
    } else {
      next = std::min(next, accept_again_);
    }
    for (auto& [name, group] : groups_) {
      if (!group->factory.valid() || group->waiting.empty()) continue;
      polled.push_back({group->factory.get(), POLLIN, 0});
      watched.push_back({2, 0, name});
    }
    for (auto& [id, connection] : connections_) {
      short client = 0, sandbox = 0;
      switch (connection->state) {
        case State::kHead:
          client = POLLIN;
          break;
        case State::kReply:
          client = POLLOUT;
          break;
        case State::kWaitSocket:
          break;
        case State::kConnecting:
          sandbox = POLLOUT;
          break;
        case State::kRelay: {
          bool answered = connection->raw || connection->response_head_done;
          // Past the request, the client is read only to see it go (relay()).
          if (!connection->client_eof && (connection->to_sandbox.room() > 0 ||
                                          (!connection->raw && connection->request_done))) {
            client |= POLLIN;
          }
          if (!connection->to_client.empty()) client |= POLLOUT;
          if (!connection->sandbox_eof &&
              (answered ? connection->to_client.room() > 0
                        : connection->response_head.size() < kMaxPreviewResponseHead)) {
            sandbox |= POLLIN;
          }
          if (!connection->to_sandbox.empty()) sandbox |= POLLOUT;
          break;
        }
      }
      if (client != 0) {
        polled.push_back({connection->client.get(), client, 0});
        watched.push_back({3, id, {}});
      }
      if (sandbox != 0) {
        polled.push_back({connection->upstream.get(), sandbox, 0});
        watched.push_back({4, id, {}});
      }
    }
    int wait_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1);
    lock.unlock();
    int ready = poll(polled.data(), polled.size(), std::max(wait_ms, 0));
    lock.lock();
    if (ready <= 0) continue;
    now = Clock::now();
    for (std::size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      const Watched& item = watched[i];
      if (item.what == 0) {
        char drain[64];
        while (read(wake_read_.get(), drain, sizeof drain) > 0) {
        }
      } else if (item.what == 1) {
        if (auto it = previews_.find(item.id); it != previews_.end() && has_room(*it->second)) {
          accept_on(*it->second, now);
        }
      } else if (item.what == 2) {
        if (auto it = groups_.find(item.group); it != groups_.end()) take_socket(*it->second);
      } else if (auto it = connections_.find(item.id);
                 it != connections_.end() && !it->second->done) {
        advance(*it->second);
      }
    }
  }
}

}  // namespace paddock::net::preview
