#include "net/preview/forwarder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "net/preview/access.h"
#include "net/preview/forwarder_parts.h"
#include "net/preview/socket_owner.h"

namespace paddock::net::preview {
namespace {

core::Result<core::UniqueFd> listen_on(std::uint16_t port) {
  core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return core::system_error("making a preview's listening socket");
  sockaddr_in address = loopback(port);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return core::system_error("binding 127.0.0.1:" + std::to_string(port));
  }
  if (listen(fd.get(), 128) != 0) return core::system_error("listening on a preview's port");
  return fd;
}

}  // namespace

PreviewForwarder::PreviewForwarder(uid_t owner, PreviewPortRange ports, PreviewLimits limits)
    : owner_(owner), ports_(ports), limits_(limits) {
  if (auto events = io::EventLoop::create()) events_.emplace(std::move(*events));
}

PreviewForwarder::~PreviewForwarder() {
  stop();
}

void PreviewForwarder::wake() {
  if (events_) events_->wake();
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

core::Result<PreviewOpened> PreviewForwarder::open(const std::string& group, core::UniqueFd factory,
                                                   std::uint16_t sandbox_port,
                                                   PreviewProtocol protocol,
                                                   std::uint16_t host_port) {
  if (sandbox_port == 0)
    return core::invalid_input("port 0 is not a port to preview: name 1 to 65535");
  std::unique_lock lock(mutex_);
  if (stopping_) return core::Error{ECANCELED, "the server is stopping"};
  if (!events_) return core::Error{EMFILE, "previews: no descriptors for the loop's pipe"};
  if (groups_.count(group) == 0) {
    if (!factory.valid()) {
      return core::Error{ENOTSUP, "this session's sandbox makes no preview sockets"};
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
    return core::Error{EMFILE,
                       "this session has " + std::to_string(in_group) +
                           " previews open, the most a session may have: use one of them, or "
                           "close the session to end them"};
  }
  if (previews_.size() >= limits_.previews) {
    return core::Error{EMFILE, "the server has " + std::to_string(previews_.size()) +
                                   " previews open, the most it allows: close a session to end its "
                                   "previews, or start the server with a higher --max-previews"};
  }
  core::Result<core::UniqueFd> listener = open_listener(host_port);
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
  if (previews_.count(id) == 0)
    return core::Error{EPIPE, "the session ended as the preview opened"};
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

core::Result<core::UniqueFd> PreviewForwarder::open_listener(std::uint16_t host_port) {
  if (host_port != 0) {
    auto listener = listen_on(host_port);
    if (!listener) return listener.error().context("opening a preview on the port asked for");
    return listener;
  }
  if (ports_.first == 0) return listen_on(0);
  core::Result<core::UniqueFd> listener = core::Error{EADDRINUSE, ""};
  for (unsigned port = ports_.first; port <= ports_.last; ++port) {
    listener = listen_on(static_cast<std::uint16_t>(port));
    if (listener || listener.error().code != EADDRINUSE) break;
  }
  if (!listener && listener.error().code == EADDRINUSE) {
    return core::Error{EADDRINUSE, "every port of the preview range " +
                                       std::to_string(ports_.first) + "-" +
                                       std::to_string(ports_.last) +
                                       " is taken: close a preview or widen --preview-ports"};
  }
  return listener;
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
  core::UniqueFd client(accept4(preview.listener.get(), reinterpret_cast<sockaddr*>(&peer), &size,
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
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto now = Clock::now();
    events_->begin_turn();
    events_->wake_by(now + std::chrono::seconds(1));
    expire(now);
    for (auto it = connections_.begin(); it != connections_.end();) {
      it = it->second->done ? connections_.erase(it) : std::next(it);
    }
    watch_all(now);
    // The lock is let go while it waits, so each handler looks its preview, group or
    // connection up again by id.
    events_->wait(&lock);
    events_->dispatch();
  }
}

void PreviewForwarder::expire(Clock::time_point now) {
  using State = Connection::State;
  for (auto& [id, connection] : connections_) {
    if (connection->done) continue;
    if (now >= connection->deadline) {
      if (connection->state == State::kRelay) {
        // However the sandbox's server keeps it open: its slot goes back for the others.
        auto preview = previews_.find(connection->preview);
        note_refusal(
            "port " + std::to_string(preview == previews_.end() ? 0 : preview->second->host_port) +
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
    events_->wake_by(connection->deadline);
  }
}

void PreviewForwarder::watch_all(Clock::time_point now) {
  if (now >= accept_again_) {
    // A listener at its preview's or session's cap waits (its clients in its backlog); every
    // other is polled, whatever that preview's connections do.
    for (auto& [id, preview] : previews_) {
      if (!has_room(*preview)) continue;
      events_->watch(preview->listener.get(), POLLIN, [this, id = id](short) {
        if (auto it = previews_.find(id); it != previews_.end() && has_room(*it->second)) {
          accept_on(*it->second, Clock::now());
        }
      });
    }
  } else {
    events_->wake_by(accept_again_);
  }
  for (auto& [name, group] : groups_) {
    if (!group->factory.valid() || group->waiting.empty()) continue;
    events_->watch(group->factory.get(), POLLIN, [this, name = name](short) {
      if (auto it = groups_.find(name); it != groups_.end()) take_socket(*it->second);
    });
  }
  for (auto& [id, connection] : connections_) watch_connection(*connection);
}

void PreviewForwarder::watch_connection(Connection& connection) {
  using State = Connection::State;
  short client = 0, sandbox = 0;
  switch (connection.state) {
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
      bool answered = connection.raw || connection.response_head_done;
      // Past the request, the client is read only to see it go (relay()).
      if (!connection.client_eof &&
          (connection.to_sandbox.room() > 0 || (!connection.raw && connection.request_done))) {
        client |= POLLIN;
      }
      if (!connection.to_client.empty()) client |= POLLOUT;
      if (!connection.sandbox_eof &&
          (answered ? connection.to_client.room() > 0
                    : connection.response_head.size() < kMaxPreviewResponseHead)) {
        sandbox |= POLLIN;
      }
      if (!connection.to_sandbox.empty()) sandbox |= POLLOUT;
      break;
    }
  }
  auto advance_it = [this, id = connection.id](short) {
    if (auto it = connections_.find(id); it != connections_.end() && !it->second->done) {
      advance(*it->second);
    }
  };
  events_->watch(connection.client.get(), client, advance_it);
  events_->watch(connection.upstream.get(), sandbox, advance_it);
}

}  // namespace paddock::net::preview
