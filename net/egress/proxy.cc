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
      wake_at = std::min({wake_at, connection->deadline, connection->idle_deadline});
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
      // Plain variables, not a structured binding: the lambdas below capture the connection,
      // which clang before 16 refuses for a binding (P1091).
      Connection* connection = owners[i - 3].first;
      bool upstream_side = owners[i - 3].second;
      if (connection->stage == Connection::Stage::kDone) continue;
      connection->touched = true;
      short events = watched[i].revents;
      bool failed = false;
      if (!upstream_side) {
        failed = !serve_side(
            connection->client.get(), events, connection->to_client,
            [live = connection] { return live->reads_client(); }, connection->from_client,
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
        std::string& into = connection->upstream_bytes();
        failed = !serve_side(
            connection->upstream.get(), events, connection->to_upstream,
            [live = connection] { return live->reads_upstream(); }, into,
            kRelayBuffer - std::min(kRelayBuffer, into.size()), connection->upstream_ended);
      }
      if (failed) connection->end();
    }
    if (ready > 0 && watched[1].revents != 0) serve_lookups();
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

}  // namespace paddock::net::egress
