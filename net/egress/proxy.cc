#include "net/egress/proxy.h"

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

#include "net/egress/proxy_connection.h"
#include "net/egress/proxy_sockets.h"

namespace paddock::net::egress {

std::vector<std::string> proxy_env(bool local_direct, bool localhost_proxied) {
  std::string proxy = "http://127.0.0.1:" + std::to_string(kProxyPort);
  std::vector<std::string> env = {"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy,
                                  "http_proxy=" + proxy, "https_proxy=" + proxy};
  const std::string local = localhost_proxied ? "127.0.0.1,::1" : "localhost,127.0.0.1,::1";
  if (local_direct) {
    env.push_back("NO_PROXY=" + local);
    env.push_back("no_proxy=" + local);
  }
  return env;
}

EgressProxy::EgressProxy(EgressPolicy policy)
    : policy_(std::move(policy)),
      allow_(std::make_shared<const AllowList>(std::move(policy_.allow))),
      consent_(std::move(policy_.consent)),
      installer_(policy_.installer) {}

core::Result<std::unique_ptr<EgressProxy>> EgressProxy::create(EgressPolicy policy) {
  std::unique_ptr<EgressProxy> proxy(new EgressProxy(std::move(policy)));
  auto events = io::EventLoop::create();
  if (!events) return events.error().context("starting the egress proxy");
  proxy->events_.emplace(std::move(*events));
  proxy->consents_ = std::make_shared<ConsentMailbox>(*proxy->events_);
  auto lookups = LookupQueue::create();
  if (!lookups) return lookups.error();
  proxy->lookups_ = std::move(*lookups);
  return proxy;
}

EgressProxy::~EgressProxy() {
  stop();
}

void EgressProxy::serve(core::UniqueFd listener) {
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
  if (consents_) consents_->close();  // an answer that comes later finds nobody waiting
  if (events_) events_->wake();
  if (loop_.joinable()) loop_.join();
  connections_.clear();
  listener_.reset();
}

void EgressProxy::set_consent(std::shared_ptr<HostConsent> consent) {
  std::lock_guard lock(mutex_);
  consent_ = std::move(consent);
}

void EgressProxy::set_allowlist(AllowList allow, bool installer) {
  std::unique_lock lock(mutex_);
  allow_ = std::make_shared<const AllowList>(std::move(allow));
  installer_ = installer;
  std::uint64_t generation = ++generation_;
  if (!looping_) {
    applied_generation_ = generation;
    return;
  }
  events_->wake();
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

void EgressProxy::deny(const std::string& host, std::uint16_t port, const std::string& reason,
                       const std::string& opened_by) {
  std::lock_guard lock(mutex_);
  note(record_.denied, {host, port, reason, opened_by});
}

void EgressProxy::fail_upstream(Connection& connection, const std::string& reason) {
  const http1::RequestHead& head = connection.head;
  {
    std::lock_guard lock(mutex_);
    note(record_.unreachable, {head.host, head.port, reason});
  }
  connection.close_with(response("502 Bad Gateway", "paddock's proxy could not reach " + head.host +
                                                        ":" + std::to_string(head.port) + ": " +
                                                        reason + "\n"));
}

void EgressProxy::note_secrets(std::vector<SecretUse> uses) {
  if (uses.empty()) return;
  std::lock_guard lock(mutex_);
  for (auto& use : uses) {
    if (std::find(record_.secrets.begin(), record_.secrets.end(), use) != record_.secrets.end()) {
      continue;
    }
    if (record_.secrets.size() >= kMaxRecorded) {
      ++record_.dropped;
      continue;
    }
    record_.secrets.push_back(std::move(use));
  }
}

void EgressProxy::reached(const std::string& host, std::uint16_t port) {
  std::lock_guard lock(mutex_);
  note(record_.allowed, {host, port, ""});
}

void EgressProxy::run() {
  io::EventLoop& events = *events_;
  while (!stopping_) {
    apply_allowlist();
    // The lookups and the listener are served after the connections' events, as they come.
    bool lookups_ready = false;
    bool accept_ready = false;
    auto now = Clock::now();
    events.begin_turn();
    watch_connections(events);
    events.watch(lookups_->ready_fd(), POLLIN, [&](short) { lookups_ready = true; });
    if (now >= accept_again_) {
      events.watch(listener_.get(), POLLIN, [&](short) { accept_ready = true; });
    } else {
      events.wake_by(accept_again_);
    }
    if (!events.wait()) break;
    if (stopping_) break;
    events.dispatch();
    now = Clock::now();
    if (lookups_ready) serve_lookups();
    serve_consents();
    for (auto& [id, connection] : connections_) {
      if (std::exchange(connection->touched, false) &&
          connection->stage != Connection::Stage::kDone) {
        advance(*connection);
        if (connection->stage == Connection::Stage::kRelaying) keep_alive(*connection, now);
      }
      if (connection->stage != Connection::Stage::kDone && now >= connection->deadline) {
        expire(*connection, now);
      } else if (connection->stage == Connection::Stage::kRelaying &&
                 now >= connection->idle_deadline) {
        idle_out(*connection);
      }
    }
    // Ended connections give their descriptors back now, not when another one comes.
    std::erase_if(connections_, [](const auto& entry) {
      return entry.second->stage == Connection::Stage::kDone;
    });
    if (accept_ready) accept_new(now);
  }
}

void EgressProxy::apply_allowlist() {
  // A list replaced since the last turn ends every connection accepted under an older one
  // before anything else happens to them, and set_allowlist learns it has.
  std::lock_guard lock(mutex_);
  if (applied_generation_ == generation_) return;
  for (auto& [id, connection] : connections_) {
    if (connection->generation != generation_) connection->end();
  }
  std::erase_if(connections_,
                [](const auto& entry) { return entry.second->stage == Connection::Stage::kDone; });
  applied_generation_ = generation_;
  applied_.notify_all();
}

void EgressProxy::watch_connections(io::EventLoop& events) {
  for (auto& [id, connection] : connections_) {
    // A plain pointer, not the binding: clang before 16 refuses to capture a structured
    // binding in a lambda (P1091).
    Connection* live = connection.get();
    short client_events =
        (live->reads_client() ? POLLIN : 0) | (live->to_client.empty() ? 0 : POLLOUT);
    short upstream_events = 0;
    if (live->upstream.valid()) {
      upstream_events =
          (live->reads_upstream() ? POLLIN : 0) |
          (live->to_upstream.empty() && live->stage != Connection::Stage::kConnecting ? 0
                                                                                      : POLLOUT);
    }
    events.watch(live->client.get(), client_events,
                 [this, live](short revents) { on_client(*live, revents); });
    events.watch(live->upstream.get(), upstream_events,
                 [this, live](short revents) { on_upstream(*live, revents); });
    events.wake_by(std::min(live->deadline, live->idle_deadline));
  }
}

void EgressProxy::on_client(Connection& connection, short events) {
  if (connection.stage == Connection::Stage::kDone) return;
  connection.touched = true;
  Connection* live = &connection;
  if (!serve_side(
          connection.client.get(), events, connection.to_client,
          [live] { return live->reads_client(); }, connection.from_client, connection.client_room(),
          connection.client_ended)) {
    connection.end();
  }
}

void EgressProxy::on_upstream(Connection& connection, short events) {
  if (connection.stage == Connection::Stage::kDone) return;
  connection.touched = true;
  if (connection.stage == Connection::Stage::kConnecting) {
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(connection.upstream.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) {
      error = errno;
    }
    if (error == 0) {
      connected(connection);
    } else {
      connection.connect_error = error;
      connect_next(connection);
    }
    return;
  }
  Connection* live = &connection;
  std::string& into = connection.upstream_bytes();
  if (!serve_side(
          connection.upstream.get(), events, connection.to_upstream,
          [live] { return live->reads_upstream(); }, into,
          kRelayBuffer - std::min(kRelayBuffer, into.size()), connection.upstream_ended)) {
    connection.end();
  }
}

void EgressProxy::accept_new(Clock::time_point now) {
  for (std::size_t turn = 0; turn < kAcceptsPerTurn; ++turn) {
    core::UniqueFd client(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
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

}  // namespace paddock::net::egress
