// The egress proxy attacked where it meets the server: what a sandbox can take from the server
// through it (descriptors, two per connection; threads and the process budget they share with
// the sandbox; the proxy's patience with a client that never finishes its handshake), and what
// a request head could slip past its checks to the upstream server. Most tests drive an
// EgressProxy in this process over real loopback sockets, as paddock-init hands it a listener;
// the last ones run `paddock mcp` under a limit of its own and attack it from a real sandbox
// (egress_test.cc has the allowlist's own tests, from sandboxes).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/unique_fd.h"
#include "net/egress/proxy.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"

namespace paddock::testing::egress_proxy_test {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
using namespace std::chrono_literals;

// An upstream server on the host's 127.0.0.1 that accepts every connection and holds it open,
// writing how many it holds to `dir`/held.
class HoldingServer {
 public:
  explicit HoldingServer(const std::string& dir)
      : dir_(dir),
        server_({"/usr/bin/python3", "-c",
                 "import os, socket, sys\n"
                 "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(4096)\n"
                 "print(s.getsockname()[1], flush=True)\n"
                 "held = []\n"
                 "while True:\n"
                 "    c, _ = s.accept(); held.append(c)\n"
                 "    with open(sys.argv[1] + '/held.tmp', 'w') as f: f.write(str(len(held)))\n"
                 "    os.rename(sys.argv[1] + '/held.tmp', sys.argv[1] + '/held')\n",
                 dir},
                dir + "/port") {}
  std::string port() const { return server_.port(); }
  int held() const {
    std::ifstream in(dir_ + "/held");
    int count = 0;
    in >> count;
    return count;
  }

 private:
  std::string dir_;
  Server server_;
};

// A fresh directory under /tmp, removed with the test.
struct TempDir {
  explicit TempDir(const std::string& name)
      : path("/tmp/paddock-" + name + "-" + std::to_string(getpid())) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    std::filesystem::permissions(path, std::filesystem::perms::all);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

// A listening socket on 127.0.0.1, as the sandbox's init makes one on the sandbox's loopback.
core::UniqueFd loopback_listener(int& port) {
  core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(listen(fd.get(), 4096), 0);
  socklen_t size = sizeof address;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &size);
  port = ntohs(address.sin_port);
  return fd;
}

struct ServedProxy {
  std::unique_ptr<net::egress::EgressProxy> proxy;
  int port = 0;
};

// A proxy that allows `patterns` and serves on a loopback port of its own; `idle` as the relay's
// idle deadline.
ServedProxy serve_proxy(const std::vector<std::string>& patterns,
                        std::chrono::milliseconds idle = net::egress::kRelayIdleDeadline) {
  std::vector<net::egress::HostPattern> parsed;
  for (const auto& text : patterns) {
    auto pattern = net::egress::parse_host_pattern(text);
    EXPECT_TRUE(pattern.ok()) << text;
    if (pattern.ok()) parsed.push_back(*pattern);
  }
  net::egress::EgressPolicy policy;
  policy.allow = net::egress::AllowList(std::move(parsed));
  policy.idle = idle;
  auto created = net::egress::EgressProxy::create(std::move(policy));
  EXPECT_TRUE(created.ok());
  ServedProxy served;
  served.proxy = std::move(*created);
  served.proxy->serve(loopback_listener(served.port));
  return served;
}

core::UniqueFd connect_to(int port) {
  core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return {};
  return fd;
}

void send_text(int fd, const std::string& text) {
  ASSERT_EQ(send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

// The first line the peer sends, "" if it ends or says nothing within `timeout`.
std::string status_line(int fd, std::chrono::milliseconds timeout = 10s) {
  std::string got;
  auto deadline = Clock::now() + timeout;
  while (got.find("\r\n") == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd watched{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&watched, 1, static_cast<int>(left.count())) <= 0) return "";
    char chunk[4096];
    ssize_t read = recv(fd, chunk, sizeof chunk, 0);
    if (read <= 0) return "";
    got.append(chunk, static_cast<std::size_t>(read));
  }
  return got.substr(0, got.find("\r\n"));
}

// Whether the peer has closed `fd` (EOF or reset) within `timeout`; data is read and dropped.
bool closed_within(int fd, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd watched{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&watched, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[4096];
    if (recv(fd, chunk, sizeof chunk, MSG_DONTWAIT) <= 0) return true;
  }
}

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// Lowers this process's soft RLIMIT_NOFILE for a test, and puts it back.
class NofileLimit {
 public:
  explicit NofileLimit(rlim_t soft) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  }
  ~NofileLimit() { setrlimit(RLIMIT_NOFILE, &saved_); }

 private:
  rlimit saved_{};
};

// A TLS ClientHello sent a byte a second never completes: the proxy gives the whole handshake
// one deadline, not one per read, so the tunnel is closed within it.
TEST(EgressProxyExhaustion, AClientHelloDrippedAByteASecondIsCutOffAtOneDeadline) {
  TempDir dir("proxy-slow-hello");
  HoldingServer upstream(dir.path);
  ASSERT_FALSE(upstream.port().empty());
  ServedProxy served = serve_proxy({"127.0.0.1:" + upstream.port()});
  core::UniqueFd client = connect_to(served.port);
  ASSERT_TRUE(client.valid());
  send_text(client.get(), "CONNECT 127.0.0.1:" + upstream.port() + " HTTP/1.1\r\n\r\n");
  ASSERT_EQ(status_line(client.get()), "HTTP/1.1 200 Connection established");
  auto opened = Clock::now();
  // A handshake record of 512 bytes, of which only its header and a byte a second come.
  send_text(client.get(), std::string("\x16\x03\x01\x02\x00\x01", 6));
  bool closed = false;
  while (!closed && Clock::now() - opened < 40s) {
    if (send(client.get(), "", 1, MSG_NOSIGNAL) != 1) break;
    closed = closed_within(client.get(), 1s);
  }
  auto open_for = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - opened);
  EXPECT_TRUE(closed) << "the tunnel was still open after " << open_for.count() << " s";
  EXPECT_LE(open_for.count(), 32);
}

// Out of descriptors, accept fails while the connection waits in the backlog: the proxy must
// wait and try again later, not poll and fail in a loop on a whole core.
TEST(EgressProxyExhaustion, AtEmfileTheProxyWaitsInsteadOfSpinning) {
  ServedProxy served = serve_proxy({"allowed.test"});
  core::UniqueFd waiting;
  double spent = 0;
  {
    NofileLimit limit(static_cast<rlim_t>(open_fd_count() + 32));
    core::UniqueFd null(open("/dev/null", O_RDONLY | O_CLOEXEC));
    std::vector<core::UniqueFd> filler;
    for (int fd; (fd = fcntl(null.get(), F_DUPFD_CLOEXEC, 0)) >= 0;) filler.emplace_back(fd);
    ASSERT_EQ(errno, EMFILE);
    filler.pop_back();  // room for the client's own socket, and then none
    waiting = connect_to(served.port);
    ASSERT_TRUE(waiting.valid());
    std::this_thread::sleep_for(200ms);
    double before = process_cpu_seconds();
    std::this_thread::sleep_for(1s);
    spent = process_cpu_seconds() - before;
  }
  EXPECT_LT(spent, 0.2) << "CPU seconds the proxy spent in one second at EMFILE";
  std::cout << "the proxy spent " << spent << " CPU s in 1 s at EMFILE\n";
  // With descriptors again, the connection that waited is served.
  send_text(waiting.get(), "CONNECT refused.test:443 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(waiting.get(), 5s), "HTTP/1.1 403 Forbidden");
}

// A connection that ended gives its descriptors back at once, not when the next one comes.
TEST(EgressProxyExhaustion, AnEndedConnectionsDescriptorsAreClosedAtOnce) {
  ServedProxy served = serve_proxy({"allowed.test"});
  std::this_thread::sleep_for(100ms);
  int before = open_fd_count();
  for (int i = 0; i < 20; ++i) {
    core::UniqueFd client = connect_to(served.port);
    ASSERT_TRUE(client.valid());
    send_text(client.get(), "CONNECT refused.test:443 HTTP/1.1\r\n\r\n");
    EXPECT_EQ(status_line(client.get()), "HTTP/1.1 403 Forbidden");
  }
  auto deadline = Clock::now() + 2s;
  while (open_fd_count() > before && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(open_fd_count(), before);
}

// Each sandbox's proxy holds at most 64 connections, and all the proxies of one server together
// at most a quarter of its descriptors (two per connection), however many sandboxes ask.
TEST(EgressProxyExhaustion, ConnectionsAreCappedPerSandboxAndForTheWholeServer) {
  TempDir dir("proxy-caps");
  HoldingServer upstream(dir.path);
  ASSERT_FALSE(upstream.port().empty());
  constexpr rlim_t kDescriptors = 1024;
  NofileLimit limit(kDescriptors);
  std::vector<ServedProxy> proxies;
  for (int i = 0; i < 3; ++i) proxies.push_back(serve_proxy({"127.0.0.1:" + upstream.port()}));
  std::vector<core::UniqueFd> clients;
  int held_total = 0;
  for (auto& served : proxies) {
    int held = 0, refused = 0;
    std::string others;
    for (int i = 0; i < 80; ++i) {
      core::UniqueFd client = connect_to(served.port);
      ASSERT_TRUE(client.valid());
      send_text(client.get(), "CONNECT 127.0.0.1:" + upstream.port() + " HTTP/1.1\r\n\r\n");
      std::string answer = status_line(client.get());
      if (answer == "HTTP/1.1 200 Connection established") ++held;
      if (answer == "HTTP/1.1 503 Service Unavailable") ++refused;
      if (held + refused != i + 1) others += "'" + answer + "' ";
      clients.push_back(std::move(client));
    }
    EXPECT_LE(held, 64);
    EXPECT_EQ(held + refused, 80) << "other answers: " << others;
    held_total += held;
  }
  EXPECT_LE(2 * held_total, static_cast<int>(kDescriptors / 4)) << held_total << " held";
  EXPECT_GT(held_total, 0);
  EXPECT_EQ(net::egress::server_connections(), static_cast<std::size_t>(held_total));
  proxies.clear();  // stopped: every connection given back
  EXPECT_EQ(net::egress::server_connections(), 0u);
}

// Reads from `fd` until `size` bytes came, it ended, or `timeout` passed.
std::string read_bytes(int fd, std::size_t size, std::chrono::milliseconds timeout = 10s) {
  std::string got;
  auto deadline = Clock::now() + timeout;
  while (got.size() < size) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd watched{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&watched, 1, static_cast<int>(left.count())) <= 0) break;
    char chunk[65536];
    ssize_t read = recv(fd, chunk, std::min(sizeof chunk, size - got.size()), 0);
    if (read <= 0) break;
    got.append(chunk, static_cast<std::size_t>(read));
  }
  return got;
}

// A tunnel carries the client's first bytes once they are judged, without waiting for more,
// then everything after both ways, and passes on each side's end: the client's end of sending
// reaches the server, whose last words and end still reach the client.
TEST(EgressProxyRequests, ATunnelCarriesBytesBothWaysAndPassesOnEachEnd) {
  TempDir dir("proxy-echo");
  Server echo({"/usr/bin/python3", "-c",
               "import socket\n"
               "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)\n"
               "print(s.getsockname()[1], flush=True)\n"
               "while True:\n"
               "    c, _ = s.accept()\n"
               "    while True:\n"
               "        chunk = c.recv(65536)\n"
               "        if not chunk: break\n"
               "        c.sendall(chunk)\n"
               "    c.sendall(b'bye'); c.close()\n"},
              dir.path + "/port");
  std::string port = echo.port();
  ASSERT_FALSE(port.empty());
  ServedProxy served = serve_proxy({"127.0.0.1:" + port});
  core::UniqueFd client = connect_to(served.port);
  send_text(client.get(), "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\n\r\n");
  std::string established = "HTTP/1.1 200 Connection established\r\n\r\n";
  ASSERT_EQ(read_bytes(client.get(), established.size()), established);
  // As a TLS client does: its first bytes after the 200, then it waits for the server.
  send_text(client.get(), "hello");
  EXPECT_EQ(read_bytes(client.get(), 5, 5s), "hello");
  std::string payload(200'000, 'x');  // more than a relay buffer holds
  std::thread sender([&] {
    send_text(client.get(), payload);
    shutdown(client.get(), SHUT_WR);
  });
  std::string got = read_bytes(client.get(), payload.size() + 10);
  sender.join();
  EXPECT_EQ(got, payload + "bye") << got.size() << " bytes";
}

// A tunnel through which nothing moves either way is ended at its idle deadline (shortened
// here): before, an opaque tunnel, or an intercepted one, was held with no deadline at all, its
// buffers and descriptors with it (issue 49, item 10). One that keeps moving is not.
TEST(EgressProxyExhaustion, AnIdleTunnelIsEndedAtItsDeadline) {
  TempDir dir("proxy-idle");
  Server echo({"/usr/bin/python3", "-c",
               "import socket, threading\n"
               "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)\n"
               "print(s.getsockname()[1], flush=True)\n"
               "def serve(c):\n"
               "    while True:\n"
               "        chunk = c.recv(65536)\n"
               "        if not chunk: break\n"
               "        c.sendall(chunk)\n"
               "while True:\n"
               "    c, _ = s.accept()\n"
               "    threading.Thread(target=serve, args=(c,), daemon=True).start()\n"},
              dir.path + "/port");
  std::string port = echo.port();
  ASSERT_FALSE(port.empty());
  ServedProxy served = serve_proxy({"127.0.0.1:" + port}, 3s);
  std::string established = "HTTP/1.1 200 Connection established\r\n\r\n";
  core::UniqueFd idle = connect_to(served.port);
  core::UniqueFd busy = connect_to(served.port);
  for (int fd : {idle.get(), busy.get()}) {
    send_text(fd, "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\n\r\n");
    ASSERT_EQ(read_bytes(fd, established.size()), established);
    send_text(fd, "hello");
    ASSERT_EQ(read_bytes(fd, 5, 5s), "hello");
  }
  auto opened = Clock::now();
  // The busy one says something every second for 6 s, twice the deadline; the idle one nothing.
  for (int second = 0; second < 6; ++second) {
    std::this_thread::sleep_for(1s);
    send_text(busy.get(), "ping");
    EXPECT_EQ(read_bytes(busy.get(), 4, 5s), "ping") << "after " << second + 1 << " s";
  }
  EXPECT_TRUE(closed_within(idle.get(), 1s));
  auto open_for = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - opened);
  EXPECT_LE(open_for.count(), 8);
  EXPECT_FALSE(closed_within(busy.get(), 100ms));
  EXPECT_TRUE(closed_within(busy.get(), 5s)) << "the busy tunnel, once idle, was not ended";
}

// An installer's list never serves the program after it: replacing the list ends every
// connection opened under the old one by the time set_allowlist returns.
TEST(EgressProxyRequests, ReplacingTheListEndsConnectionsOpenedUnderTheOldOne) {
  TempDir dir("proxy-relist");
  HoldingServer upstream(dir.path);
  ASSERT_FALSE(upstream.port().empty());
  std::string target = "127.0.0.1:" + upstream.port();
  ServedProxy served = serve_proxy({target});
  core::UniqueFd tunnel = connect_to(served.port);
  send_text(tunnel.get(), "CONNECT " + target + " HTTP/1.1\r\n\r\n");
  ASSERT_EQ(status_line(tunnel.get()), "HTTP/1.1 200 Connection established");
  send_text(tunnel.get(), "not tls, on a port the pattern names");
  EXPECT_FALSE(closed_within(tunnel.get(), 300ms));
  served.proxy->set_allowlist(net::egress::AllowList{});
  EXPECT_TRUE(closed_within(tunnel.get(), 1s));
  core::UniqueFd again = connect_to(served.port);
  send_text(again.get(), "CONNECT " + target + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(again.get()), "HTTP/1.1 403 Forbidden");
  auto record = served.proxy->take_record();
  ASSERT_EQ(record.allowed.size(), 1u);
  ASSERT_EQ(record.denied.size(), 1u);
  EXPECT_EQ(record.denied[0].reason, "it is not in the allowlist");
}

// What the proxy may reach but cannot is recorded apart from what it refused, with why: an
// installer only sees a 502, and says "from versions: none" or "Bad Gateway" about it.
TEST(EgressProxyRequests, AnUnreachableDestinationIsRecordedWithWhy) {
  // A port bound but never listening, held so no one else takes it meanwhile: connects to it
  // are refused.
  core::UniqueFd unbound(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(unbound.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t size = sizeof address;
  getsockname(unbound.get(), reinterpret_cast<sockaddr*>(&address), &size);
  int closed_port = ntohs(address.sin_port);
  std::string closed = "127.0.0.1:" + std::to_string(closed_port);
  ServedProxy served = serve_proxy({closed, "paddock-no-such-host.invalid"});
  core::UniqueFd refused = connect_to(served.port);
  send_text(refused.get(), "CONNECT " + closed + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(refused.get()), "HTTP/1.1 502 Bad Gateway");
  core::UniqueFd unresolved = connect_to(served.port);
  send_text(unresolved.get(),
            "GET http://paddock-no-such-host.invalid/ HTTP/1.1\r\n"
            "Host: paddock-no-such-host.invalid\r\n\r\n");
  EXPECT_EQ(status_line(unresolved.get(), 60s), "HTTP/1.1 502 Bad Gateway");
  auto record = served.proxy->take_record();
  EXPECT_TRUE(record.denied.empty());
  EXPECT_TRUE(record.allowed.empty());
  ASSERT_EQ(record.unreachable.size(), 2u);
  EXPECT_EQ(record.unreachable[0],
            (net::egress::Destination{"127.0.0.1", static_cast<std::uint16_t>(closed_port),
                                      "the connection failed: Connection refused"}));
  EXPECT_EQ(record.unreachable[1].host, "paddock-no-such-host.invalid");
  EXPECT_EQ(record.unreachable[1].reason.rfind("its name could not be resolved", 0), 0u)
      << record.unreachable[1].reason;
}

// Ending a run never waits on an upstream that drops packets: here a listener whose backlog is
// full, so that the kernel drops the proxy's SYNs and its connect hangs.
TEST(EgressProxyRequests, StoppingIsPromptWhileAConnectHangs) {
  int port = 0;
  core::UniqueFd silent = loopback_listener(port);
  ASSERT_EQ(listen(silent.get(), 0), 0);
  std::vector<core::UniqueFd> queued;
  for (int i = 0; i < 4; ++i) {
    core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    (void)connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address);
    queued.push_back(std::move(fd));
  }
  ServedProxy served = serve_proxy({"127.0.0.1:" + std::to_string(port)});
  core::UniqueFd client = connect_to(served.port);
  send_text(client.get(), "CONNECT 127.0.0.1:" + std::to_string(port) + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(client.get(), 1s), "");  // still connecting
  auto before = Clock::now();
  served.proxy->stop();
  EXPECT_LT(Clock::now() - before, 500ms);
  EXPECT_TRUE(closed_within(client.get(), 1s));
}

// An upstream server that writes the raw head of every request it gets to `log`, NUL after
// each, and answers 200.
std::vector<std::string> server_heads(const std::string& log) {
  std::string all = read_file(log);
  std::vector<std::string> heads;
  for (std::size_t at = 0, end; (end = all.find('\0', at)) != std::string::npos; at = end + 1) {
    heads.push_back(all.substr(at, end - at));
  }
  return heads;
}

// A head the proxy reads one way and a server that ends lines at a bare LF reads another never
// reaches the server; what does is the head the proxy rebuilt from what it checked.
TEST(EgressProxyRequests, OnlyAHeadTheProxyRebuiltReachesTheServer) {
  TempDir dir("proxy-heads");
  Server recorder({"/usr/bin/python3", "-c",
                   "import socket, sys, threading\n"
                   "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(64)\n"
                   "print(s.getsockname()[1], flush=True)\n"
                   "def serve(c):\n"
                   "    data = b''\n"
                   "    while b'\\r\\n\\r\\n' not in data:\n"
                   "        chunk = c.recv(65536)\n"
                   "        if not chunk: break\n"
                   "        data += chunk\n"
                   "    with open(sys.argv[1], 'ab') as log: log.write(data + b'\\0')\n"
                   "    c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\n"
                   "Connection: close\\r\\n\\r\\nok'); c.close()\n"
                   "while True:\n"
                   "    c, _ = s.accept(); threading.Thread(target=serve, args=(c,)).start()\n",
                   dir.path + "/heads"},
                  dir.path + "/port");
  std::string port = recorder.port();
  ASSERT_FALSE(port.empty());
  std::string host = "127.0.0.1:" + port;
  ServedProxy served = serve_proxy({host});
  auto ask = [&](const std::string& head) {
    core::UniqueFd client = connect_to(served.port);
    EXPECT_TRUE(client.valid());
    send_text(client.get(), head);
    return status_line(client.get());
  };
  std::string line = "GET http://" + host + "/x HTTP/1.1\r\n";
  // A second Host behind a bare LF, for a server that routes by the last one.
  EXPECT_EQ(ask(line + "Host: " + host + "\r\nX-A: 1\nHost: evil.test\r\n\r\n"),
            "HTTP/1.1 400 Bad Request");
  // A Transfer-Encoding behind a bare LF, for a server that frames the body by it.
  EXPECT_EQ(ask("POST http://" + host + "/x HTTP/1.1\r\nHost: " + host +
                "\r\nContent-Length: 5\r\nX-A: 1\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(ask(line + "\r\n"), "HTTP/1.1 400 Bad Request");  // no Host at all
  EXPECT_EQ(
      ask(line + "Host:   " + host + " \t\r\nX-B:\tb\r\nProxy-Authorization: Basic eA==\r\n\r\n"),
      "HTTP/1.1 200 OK");
  EXPECT_EQ(server_heads(dir.path + "/heads"),
            std::vector<std::string>{"GET /x HTTP/1.1\r\nHost: " + host + "\r\nX-B: b\r\n\r\n"});
}

// The threads of `pid` and of every process of this user: RLIMIT_NPROC counts them all.
int tasks_of_user(uid_t uid) {
  int tasks = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    std::string line;
    bool mine = false;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) mine = std::stoul(line.substr(4)) == uid;
      if (mine && line.rfind("Threads:", 0) == 0) tasks += std::stoi(line.substr(8));
    }
  }
  return tasks;
}

// CPU seconds `pid` has used so far (user and system).
double cpu_seconds_of(pid_t pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  std::size_t at = stat.rfind(')');
  std::istringstream fields(stat.substr(at + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0 &&
         read_file("/proc/" + std::to_string(pid) + "/stat").find(") Z ") == std::string::npos;
}

std::string stdout_of(const json& answer) {
  if (!answer.is_object() || !answer.contains("result")) return "no result: " + answer.dump();
  const json& result = answer["result"];
  if (!result.contains("structuredContent")) return "no structured content: " + result.dump();
  return result["structuredContent"].value("stdout", "");
}

// Python that opens `count` tunnels through the proxy to 127.0.0.1:`port`, prints how each was
// answered, and holds them `hold` seconds.
std::string tunnel_opener(const std::string& port, int count, int hold) {
  return "import socket, time\n"
         "held, answers = [], {}\n"
         "for i in range(" +
         std::to_string(count) +
         "):\n"
         "    try:\n"
         "        s = socket.create_connection(('127.0.0.1', 3128), timeout=10)\n"
         "        s.sendall(b'CONNECT 127.0.0.1:" +
         port +
         " HTTP/1.1\\r\\n\\r\\n')\n"
         "        line = s.recv(4096).split(b'\\r\\n')[0].decode() or 'closed'\n"
         "        held.append(s)\n"
         "    except OSError as e:\n"
         "        line = type(e).__name__\n"
         "    answers[line] = answers.get(line, 0) + 1\n"
         "print(sorted(answers.items()), flush=True)\n"
         "time.sleep(" +
         std::to_string(hold) + ")\n";
}

// The server starts with as many descriptors as its hard limit allows: a soft limit of 1024,
// the default, would be what a sandbox's tunnels exhaust first.
TEST(EgressProxyExhaustion, TheServerRaisesItsSoftDescriptorLimitToTheHardOne) {
  McpProcess server({}, {"/usr/bin/prlimit", "--nofile=256:4096", "--"});
  server.request(1, "ping");
  ASSERT_FALSE(server.wait_for(1).is_null());
  std::string limits = read_file("/proc/" + std::to_string(server.pid()) + "/limits");
  std::size_t line = limits.find("Max open files");
  ASSERT_NE(line, std::string::npos) << limits;
  std::istringstream fields(limits.substr(line + std::string("Max open files").size()));
  std::string soft, hard;
  fields >> soft >> hard;
  EXPECT_EQ(soft, "4096");
  EXPECT_EQ(hard, "4096");
}

// Sandboxes open many tunnels through the proxies of a server that has 1024 descriptors, the
// least a sandbox's own limit (1024) allows: together they could hold every one of them (64
// tunnels each, two descriptors a tunnel). The server refuses the tunnels over its budget, does
// not spin, and answers another call meanwhile.
TEST(EgressProxyExhaustion, SandboxesOpeningManyTunnelsLeaveTheServerDescriptors) {
  TempDir dir("proxy-nofile");
  HoldingServer upstream(dir.path);
  ASSERT_FALSE(upstream.port().empty());
  constexpr int kDescriptors = 1024;
  constexpr int kSandboxes = 9;
  McpProcess server(
      {"--allow-host", "127.0.0.1:" + upstream.port(), "--workers", "16"},
      {"/usr/bin/prlimit",
       "--nofile=" + std::to_string(kDescriptors) + ":" + std::to_string(kDescriptors), "--"});
  server.request(1, "ping");
  ASSERT_FALSE(server.wait_for(1).is_null());
  for (int i = 0; i < kSandboxes; ++i) {
    server.call(10 + i, "execute_code", {{"code", tunnel_opener(upstream.port(), 70, 20)}});
  }
  // Until the sandboxes hold what they will get.
  auto deadline = Clock::now() + 25s;
  int held = -1;
  while (Clock::now() < deadline && (held != upstream.held() || held <= 0)) {
    held = upstream.held();
    std::this_thread::sleep_for(2s);
  }
  double before = cpu_seconds_of(server.pid());
  std::this_thread::sleep_for(2s);
  double spent = cpu_seconds_of(server.pid()) - before;
  std::string status = read_file("/proc/" + std::to_string(server.pid()) + "/status");
  std::string threads = status.substr(status.find("Threads:") + 8);
  std::cout << "the server holds "
            << directory_entries("/proc/" + std::to_string(server.pid()) + "/fd").size()
            << " descriptors and" << threads.substr(0, threads.find('\n')) << " threads\n";
  server.call(3, "execute_code", {{"code", "print('still answering')"}});
  json other = server.wait_for(3);
  EXPECT_TRUE(alive(server.pid()));
  EXPECT_LE(2 * held, kDescriptors / 4) << "tunnels held at once";
  EXPECT_LT(spent, 0.5) << "CPU seconds the server spent in 2 s while the tunnels were held";
  EXPECT_EQ(stdout_of(other), "still answering\n") << other.dump();
  for (int i = 0; i < kSandboxes; ++i) {
    json attack = server.wait_for(10 + i);
    EXPECT_NE(stdout_of(attack).find("503 Service Unavailable"), std::string::npos)
        << attack.dump();
    if (i == 0) std::cout << "the first sandbox saw " << stdout_of(attack);
  }
  std::cout << "held " << held << " tunnels; the server spent " << spent << " CPU s in 2 s\n";
}

// A v1 pids cgroup for a test (this host's pids controller is v1), removed after what runs in
// it: declared before the processes it holds, so that it outlives them.
struct PidsCgroup {
  std::string path;
  bool make(const std::string& where, int max) {
    if (!std::filesystem::create_directory(where)) return false;
    path = where;
    std::ofstream(path + "/pids.max") << max << "\n";
    return true;
  }
  std::string events() const { return path.empty() ? "" : read_file(path + "/pids.events"); }
  ~PidsCgroup() {
    if (path.empty()) return;
    // Its sandboxes die with their server (PR_SET_PDEATHSIG), a moment after it.
    for (int i = 0; i < 100 && rmdir(path.c_str()) != 0 && errno == EBUSY; ++i) {
      std::this_thread::sleep_for(50ms);
    }
  }
};

// The process budget the server shares with its sandboxes: for a user, RLIMIT_NPROC counts the
// sandbox's processes against the server's user; for root, the server's pids cgroup holds
// them. A sandbox that fills it while its tunnels start must not take the server down.
TEST(EgressProxyExhaustion, ASandboxFillingTheProcessBudgetLeavesTheServerUp) {
  TempDir dir("proxy-nproc");
  HoldingServer upstream(dir.path);
  ASSERT_FALSE(upstream.port().empty());
  // The budget, from the server's first instruction (its warm sandboxes are made at start):
  // for root a pids cgroup of 150, as the review saw it; for a user, a soft RLIMIT_NPROC of
  // what the user runs now and 100 more. Either is reached before the sandbox's own limit (128).
  PidsCgroup cgroup;
  std::vector<std::string> launcher;
  if (getuid() == 0) {
    ASSERT_TRUE(
        cgroup.make("/sys/fs/cgroup/pids/paddock-proxy-test-" + std::to_string(getpid()), 150));
    launcher = {"/bin/sh", "-c", "echo $$ > " + cgroup.path + "/cgroup.procs && exec \"$@\"", "sh"};
  } else {
    // The soft limit is what counts; the hard one leaves room for a sandbox's own (128).
    int budget = tasks_of_user(getuid()) + 100;
    launcher = {"/usr/bin/prlimit",
                "--nproc=" + std::to_string(budget) + ":" + std::to_string(budget + 10'000), "--"};
  }
  McpProcess server({"--allow-host", "127.0.0.1:" + upstream.port()}, launcher);
  server.call(1, "create_session", json::object());
  json created = server.wait_for(1);
  ASSERT_TRUE(created.contains("result")) << created.dump();
  std::string session = created["result"]["structuredContent"]["session_id"];
  // Tunnels first, then every process the budget allows, while the proxy starts relaying them
  // (2 s after the 200 on a port that is not 80 or 443).
  server.call(2, "execute_code",
              {{"code",
                "import os, socket, time\n"
                "tunnels = []\n"
                "for i in range(10):\n"
                "    s = socket.create_connection(('127.0.0.1', 3128), timeout=10)\n"
                "    s.sendall(b'CONNECT 127.0.0.1:" +
                    upstream.port() +
                    " HTTP/1.1\\r\\n\\r\\n')\n"
                    "    tunnels.append(s.recv(4096).split(b'\\r\\n')[0].decode())\n"
                    "children = []\n"
                    "while True:\n"
                    "    try:\n"
                    "        pid = os.fork()\n"
                    "    except OSError:\n"
                    "        break\n"
                    "    if pid == 0:\n"
                    "        time.sleep(20); os._exit(0)\n"
                    "    children.append(pid)\n"
                    "time.sleep(5)\n"
                    "for pid in children: os.kill(pid, 9)\n"
                    "for pid in children: os.waitpid(pid, 0)\n"
                    "print(len(children) > 0, sorted(set(tunnels)))\n"
                    "print(len(children), file=__import__('sys').stderr)\n"}});
  json attack = server.wait_for(2);
  if (!alive(server.pid())) {
    FAIL() << "the server ended, status " << server.wait_exit(std::chrono::seconds(5))
           << "; pids.events: " << cgroup.events();
  }
  server.request(3, "ping");
  EXPECT_FALSE(server.wait_for(3, std::chrono::seconds(10)).is_null());
  server.call(4, "execute_code", {{"session_id", session}, {"code", "print('session kept')"}});
  json kept = server.wait_for(4);
  EXPECT_EQ(stdout_of(attack), "True ['HTTP/1.1 200 Connection established']\n") << attack.dump();
  // The budget ran out before the sandbox's own limit did: the cgroup says so, and for a user
  // the sandbox got fewer processes than its own limit would have let it have.
  int children = attack.contains("result") && attack["result"].contains("structuredContent")
                     ? std::stoi("0" + attack["result"]["structuredContent"].value("stderr", ""))
                     : -1;
  std::cout << "the sandbox started " << children << " processes before fork failed; "
            << (getuid() == 0 ? "pids.events: " + cgroup.events() : "") << "\n";
  if (getuid() == 0) {
    EXPECT_NE(cgroup.events(), "max 0\n");
  } else {
    EXPECT_LT(children, 110);
  }
  EXPECT_EQ(stdout_of(kept), "session kept\n") << kept.dump();
}

}  // namespace
}  // namespace paddock::testing::egress_proxy_test
