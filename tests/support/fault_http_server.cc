#include "support/fault_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/text.h"

namespace paddock::testing {
namespace {

// A request head larger than this is not one the client under test sends: give up on it.
constexpr std::size_t kMaxHeadBytes = 64u << 10;

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 307:
      return "Temporary Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

}  // namespace

bool RecordedRequest::has_header(const std::string& name) const {
  return headers.contains(core::to_lower(name));
}

std::string RecordedRequest::header(const std::string& name) const {
  auto it = headers.find(core::to_lower(name));
  return it == headers.end() ? std::string() : it->second;
}

core::Result<std::unique_ptr<FaultHttpServer>> FaultHttpServer::start() {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return core::system_error("creating the test server's socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener, 16) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    core::Error error = core::system_error("listening on 127.0.0.1");
    close(listener);
    return error;
  }
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    core::Error error = core::system_error("creating the test server's eventfd");
    close(listener);
    return error;
  }
  return std::unique_ptr<FaultHttpServer>(
      new FaultHttpServer(listener, wake, ntohs(address.sin_port)));
}

FaultHttpServer::FaultHttpServer(int listener, int wake, int port)
    : listener_(listener), wake_(wake), port_(port), thread_([this] { serve(); }) {}

FaultHttpServer::~FaultHttpServer() {
  // The eventfd stays readable from now on, so every wait of the thread ends at once.
  // A failure can only be a full counter (EAGAIN), which is readable already.
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wake_, &one, sizeof one);
  thread_.join();
  close(listener_);
  close(wake_);
}

std::string FaultHttpServer::url(const std::string& path, const std::string& host) const {
  return "http://" + host + ":" + std::to_string(port_) + path;
}

void FaultHttpServer::script(const std::string& method, const std::string& path,
                             std::vector<FaultAnswer> answers) {
  std::lock_guard lock(mutex_);
  routes_[{method, path}] = Route{std::move(answers), 0};
}

std::vector<RecordedRequest> FaultHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

int FaultHttpServer::count(const std::string& method, const std::string& path) const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(
      std::count_if(requests_.begin(), requests_.end(), [&](const RecordedRequest& request) {
        return request.method == method && request.path == path;
      }));
}

bool FaultHttpServer::pause(int ms) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    pollfd wake{wake_, POLLIN, 0};
    int ready = poll(&wake, 1, static_cast<int>(left.count()));
    if (ready > 0) return false;
    if (ready < 0 && errno != EINTR) return false;
  }
}

namespace {

// All of `bytes`, or false when the peer is gone or the server stops. Non-blocking sends, so a
// client that stopped reading cannot keep the destructor waiting.
bool send_all(int connection, int wake, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t sent = ::send(connection, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    pollfd fds[2] = {{connection, POLLOUT, 0}, {wake, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return false;
    if (fds[1].revents != 0) return false;
  }
  return true;
}

void parse_head(std::string_view head, RecordedRequest& request) {
  std::size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  std::size_t first = line.find(' ');
  std::size_t second = line.find(' ', first == std::string_view::npos ? first : first + 1);
  request.method = std::string(line.substr(0, first));
  if (first != std::string_view::npos) {
    request.target = std::string(line.substr(first + 1, second - first - 1));
  }
  request.path = request.target.substr(0, request.target.find('?'));
  while (line_end != std::string_view::npos) {
    std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    line = head.substr(start, line_end == std::string_view::npos ? line_end : line_end - start);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = core::to_lower(core::trim(line.substr(0, colon)));
    std::string value = core::trim(line.substr(colon + 1));
    auto [it, inserted] = request.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
}

}  // namespace

void FaultHttpServer::serve() {
  int connections = 0;
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    // A head and its body go out in two writes; Nagle would hold the second until the client's
    // delayed acknowledgement (40 ms) on a reused connection, and merge what the chunk delays
    // keep apart.
    int one = 1;
    setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve_connection(connection, ++connections);
    close(connection);
  }
}

bool FaultHttpServer::read_request(int connection, std::string& pending, RecordedRequest& request) {
  // Until the head is in, then until the body is; `body_end` is known once the head is.
  std::size_t head_end = std::string::npos;
  std::size_t body_end = std::string::npos;
  for (;;) {
    if (head_end == std::string::npos) {
      if (std::size_t found = pending.find("\r\n\r\n"); found != std::string::npos) {
        head_end = found + 4;
        parse_head(std::string_view(pending).substr(0, found), request);
        body_end = head_end + std::strtoull(request.header("content-length").c_str(), nullptr, 10);
        // curl waits a moment for this before a large body; answering at once keeps tests fast.
        if (core::to_lower(request.header("expect")) == "100-continue" &&
            !send_all(connection, wake_, "HTTP/1.1 100 Continue\r\n\r\n")) {
          return false;
        }
      } else if (pending.size() > kMaxHeadBytes) {
        return false;
      }
    }
    if (body_end != std::string::npos && pending.size() >= body_end) {
      request.body = pending.substr(head_end, body_end - head_end);
      pending.erase(0, body_end);
      return true;
    }
    // An idle kept-alive connection must not hold up a client that opened another one (to
    // another host name, or after giving up on this one): one connection at a time means the
    // newest.
    bool idle = pending.empty();
    pollfd fds[3] = {{connection, POLLIN, 0}, {wake_, POLLIN, 0}, {listener_, POLLIN, 0}};
    if (poll(fds, idle ? 3 : 2, -1) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (fds[1].revents != 0) return false;
    if (fds[0].revents == 0) {
      if (idle && (fds[2].revents & POLLIN) != 0) return false;
      continue;
    }
    char buffer[65536];
    ssize_t got = recv(connection, buffer, sizeof buffer, 0);
    if (got <= 0) return false;
    pending.append(buffer, static_cast<std::size_t>(got));
  }
}

FaultAnswer FaultHttpServer::answer_for(const RecordedRequest& request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(request);
  auto it = routes_.find({request.method, request.path});
  if (it == routes_.end() || it->second.answers.empty()) {
    FaultAnswer missing;
    missing.status = 404;
    missing.body = "no script for " + request.method + " " + request.path + "\n";
    return missing;
  }
  Route& route = it->second;
  FaultAnswer answer = route.answers[std::min(route.next, route.answers.size() - 1)];
  if (route.next < route.answers.size()) ++route.next;
  return answer;
}

void FaultHttpServer::serve_connection(int connection, int number) {
  std::string pending;
  for (;;) {
    RecordedRequest request;
    if (!read_request(connection, pending, request)) return;
    request.connection = number;
    FaultAnswer answer = answer_for(request);
    if (answer.close_without_answer) return;

    bool chunked = answer.chunk_bytes > 0;
    std::string head =
        "HTTP/1.1 " + std::to_string(answer.status) + " " + reason(answer.status) + "\r\n";
    for (const auto& line : answer.headers) head += line + "\r\n";
    head += chunked ? std::string("Transfer-Encoding: chunked\r\n")
                    : "Content-Length: " + std::to_string(answer.body.size()) + "\r\n";
    if (answer.close_connection) head += "Connection: close\r\n";
    head += "\r\n";
    if (!send_all(connection, wake_, head)) return;
    if (answer.stall_ms > 0 && !pause(answer.stall_ms)) return;

    if (request.method != "HEAD") {
      if (!chunked) {
        if (!send_all(connection, wake_, answer.body)) return;
      } else {
        for (std::size_t offset = 0; offset < answer.body.size(); offset += answer.chunk_bytes) {
          if (offset > 0 && answer.chunk_delay_ms > 0 && !pause(answer.chunk_delay_ms)) return;
          std::string_view piece = std::string_view(answer.body).substr(offset, answer.chunk_bytes);
          char size[32];
          int written = snprintf(size, sizeof size, "%zx\r\n", piece.size());
          std::string chunk(size, static_cast<std::size_t>(written));
          chunk.append(piece);
          chunk += "\r\n";
          if (!send_all(connection, wake_, chunk)) return;
        }
        if (!send_all(connection, wake_, "0\r\n\r\n")) return;
      }
      if (!answer.extra_body.empty() && !send_all(connection, wake_, answer.extra_body)) return;
    }
    if (answer.close_connection) return;
  }
}

}  // namespace paddock::testing
