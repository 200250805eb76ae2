// The preview forwarder on its own (net/preview/forwarder.h), with a socket factory played by
// the test: what it refuses whatever user runs the test. The whole path, with a real sandbox's
// init as the factory, is preview_test.cc's.

#include "net/preview/forwarder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "net/preview/socket_request.h"
#include "runtime/native/init/session_channel.h"

namespace paddock::net::preview::preview_forwarder_test {
namespace {

// Serves a factory's requests as a sandbox's init does, with sockets made by `make`.
class TestFactory {
 public:
  explicit TestFactory(int (*make)()) : make_(make) {
    int pair[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    mine_.reset(pair[0]);
    theirs_ = core::UniqueFd(pair[1]);
    thread_ = std::thread([this] {
      char request = 0;
      while (recv(mine_.get(), &request, 1, 0) == 1) {
        PreviewSocketAnswer answer;
        int fd = make_();
        // As init answers (session_init.cc): the answer with the socket riding along.
        init::send_packet(mine_.get(), &answer, sizeof answer, &fd, 1);
        close(fd);
      }
    });
  }
  ~TestFactory() {
    shutdown(mine_.get(), SHUT_RDWR);
    thread_.join();
  }
  core::UniqueFd take() { return std::move(theirs_); }

 private:
  int (*make_)();
  core::UniqueFd mine_, theirs_;
  std::thread thread_;
};

int tcp_socket() {
  return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}
int unix_socket() {
  return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

// A listener on the test's loopback standing in for the sandbox's server; counts accepts.
struct Listener {
  core::UniqueFd fd{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  std::uint16_t port = 0;
  Listener() {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(listen(fd.get(), 16), 0);
    socklen_t size = sizeof address;
    getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &size);
    port = ntohs(address.sin_port);
  }
  int accepted() {
    int count = 0;
    while (true) {
      core::UniqueFd one(accept4(fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!one.valid()) return count;
      ++count;
    }
  }
};

std::string talk(std::uint16_t port, const std::string& send_text) {
  core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return "(refused)";
  }
  send(fd.get(), send_text.data(), send_text.size(), MSG_NOSIGNAL);
  std::string got;
  for (;;) {
    pollfd ready{fd.get(), POLLIN, 0};
    if (poll(&ready, 1, 20000) <= 0) return got + "(no end)";
    char chunk[4096];
    ssize_t n = read(fd.get(), chunk, sizeof chunk);
    if (n <= 0) return got;
    got.append(chunk, static_cast<std::size_t>(n));
  }
}

// The test's own connections are another user's to a forwarder that serves someone else: so a
// second local user is refused, whoever runs this (as root, preview_test.cc tries a real one).
TEST(PreviewForwarder, AnotherUsersConnectionsAreRefusedBeforeReachingTheSandbox) {
  Listener sandbox;
  TestFactory factory(tcp_socket);
  PreviewForwarder forwarder(getuid() + 1, {});
  auto tcp = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kTcp);
  ASSERT_TRUE(tcp) << tcp.error().message;
  EXPECT_TRUE(tcp->accepting) << tcp->probe;
  auto http = forwarder.open("s", core::UniqueFd(), sandbox.port, PreviewProtocol::kHttp);
  ASSERT_TRUE(http) << http.error().message;
  int probes = sandbox.accepted();
  EXPECT_EQ(probes, 2);

  EXPECT_EQ(talk(tcp->host_port, "ping"), "");
  std::string token = http->url.substr(http->url.find('=') + 1);
  std::string answer =
      talk(http->host_port, "GET /?paddock_preview=" + token + " HTTP/1.1\r\nHost: 127.0.0.1:" +
                                std::to_string(http->host_port) + "\r\n\r\n");
  EXPECT_NE(answer.find("403"), std::string::npos) << answer;
  EXPECT_NE(answer.find("another user"), std::string::npos) << answer;
  EXPECT_EQ(sandbox.accepted(), 0);  // nothing reached the sandbox's server
  auto refusals = forwarder.refusals();
  ASSERT_EQ(refusals.size(), 2u);
  EXPECT_NE(refusals[0].find("uid " + std::to_string(getuid())), std::string::npos) << refusals[0];
}

TEST(PreviewForwarder, TheOwnersConnectionsGoThroughAndListenOnLoopbackOnly) {
  Listener sandbox;
  TestFactory factory(tcp_socket);
  PreviewForwarder forwarder(getuid(), {});
  auto tcp = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kTcp);
  ASSERT_TRUE(tcp) << tcp.error().message;
  EXPECT_EQ(sandbox.accepted(), 1);
  std::thread client([&] { talk(tcp->host_port, "ping"); });
  int served = 0;
  for (int i = 0; i < 200 && served == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    served = sandbox.accepted();
  }
  EXPECT_EQ(served, 1);
  client.join();
  EXPECT_EQ(tcp->url, "tcp://127.0.0.1:" + std::to_string(tcp->host_port));
}

TEST(PreviewForwarder, AFactoryThatSendsSomethingElseIsNotUsed) {
  Listener sandbox;
  TestFactory factory(unix_socket);
  PreviewForwarder forwarder(getuid(), {});
  auto opened = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kTcp);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_FALSE(opened->accepting);
  EXPECT_NE(opened->probe.find("something else"), std::string::npos) << opened->probe;
}

TEST(PreviewForwarder, APortRangeIsKeptToAndItsEndSaid) {
  Listener sandbox;
  Listener taken;  // a port already in use: the range's only one
  TestFactory factory(tcp_socket);
  PreviewForwarder forwarder(getuid(), {taken.port, taken.port});
  auto refused = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kHttp);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--preview-ports"), std::string::npos)
      << refused.error().message;
}

// A sandbox's server that never accepts: its preview takes no more than its cap of the loop's
// connections, and a relayed connection over which nothing moves is closed at its idle
// deadline, however the sandbox keeps it, so that the preview's next client gets its turn.
TEST(PreviewForwarder, AnIdleConnectionIsClosedAndAPreviewKeepsToItsCap) {
  Listener sandbox;  // never accepts but when asked: its backlog holds the connections
  TestFactory factory(tcp_socket);
  PreviewLimits limits;
  limits.connections_per_preview = 1;
  limits.idle = std::chrono::milliseconds(1500);
  PreviewForwarder forwarder(getuid(), {}, limits);
  auto tcp = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kTcp);
  ASSERT_TRUE(tcp) << tcp.error().message;
  ASSERT_EQ(sandbox.accepted(), 1);  // the probe
  auto connect_to = [&] {
    core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(tcp->host_port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    return fd;
  };
  // The sandbox's ends are kept open: only the idle deadline may end a connection here.
  std::vector<core::UniqueFd> kept;
  auto relayed = [&](std::chrono::milliseconds within) {
    for (auto end = std::chrono::steady_clock::now() + within;
         std::chrono::steady_clock::now() < end;) {
      core::UniqueFd one(accept4(sandbox.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (one.valid()) {
        kept.push_back(std::move(one));
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  };
  core::UniqueFd first = connect_to();
  EXPECT_EQ(relayed(std::chrono::milliseconds(1000)), 1);
  auto relayed_at = std::chrono::steady_clock::now();
  core::UniqueFd second = connect_to();  // past the preview's cap: waits in the backlog
  EXPECT_EQ(relayed(std::chrono::milliseconds(700)), 0);
  // The first is closed at its idle deadline; then the second gets its turn.
  pollfd ended{first.get(), POLLIN, 0};
  ASSERT_EQ(poll(&ended, 1, 5000), 1);
  char byte;
  EXPECT_EQ(read(first.get(), &byte, 1), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - relayed_at, std::chrono::milliseconds(1400));
  EXPECT_EQ(relayed(std::chrono::milliseconds(3000)), 1);
  bool said = false;
  for (const auto& line : forwarder.refusals())
    said = said || line.find("idle") != std::string::npos;
  EXPECT_TRUE(said);
}

// An HTTP client that goes away before its answer gives its slot back at once, not at the idle
// deadline: the next client of a preview at its cap is relayed, though the sandbox's server
// never accepted either.
TEST(PreviewForwarder, AnHttpClientThatGoesAwayGivesItsSlotBackAtOnce) {
  Listener sandbox;  // never accepts: the connections wait in its backlog
  TestFactory factory(tcp_socket);
  PreviewLimits limits;
  limits.connections_per_preview = 1;
  PreviewForwarder forwarder(getuid(), {}, limits);
  auto http = forwarder.open("s", factory.take(), sandbox.port, PreviewProtocol::kHttp);
  ASSERT_TRUE(http) << http.error().message;
  ASSERT_EQ(sandbox.accepted(), 1);  // the probe
  std::string token = http->url.substr(http->url.find('=') + 1);
  std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(http->host_port) +
                        "\r\nCookie: paddock_preview_" + std::to_string(http->host_port) + "=" +
                        token + "\r\n\r\n";
  auto ask = [&] {
    core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(http->host_port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    return fd;
  };
  // The sandbox's ends are kept open and silent: no answer, no end, ends either connection.
  std::vector<core::UniqueFd> kept;
  auto relayed_within = [&](std::chrono::milliseconds within) {
    for (auto end = std::chrono::steady_clock::now() + within;
         std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
      core::UniqueFd one(accept4(sandbox.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (one.valid()) {
        kept.push_back(std::move(one));
        return true;
      }
    }
    return false;
  };
  core::UniqueFd first = ask();
  EXPECT_TRUE(relayed_within(std::chrono::milliseconds(2000)));
  core::UniqueFd second = ask();  // past the cap: waits
  EXPECT_FALSE(relayed_within(std::chrono::milliseconds(500)));
  first.reset();  // goes away unanswered
  EXPECT_TRUE(relayed_within(std::chrono::milliseconds(2000)));
}

// Past a session's cap of previews, and the server's, open() refuses in one line; the session's
// factory is kept, so its next preview, within the caps, opens.
TEST(PreviewForwarder, PreviewsAreCappedBySessionAndByServer) {
  Listener sandbox;
  TestFactory first_factory(tcp_socket), second_factory(tcp_socket);
  PreviewLimits limits;
  limits.previews_per_session = 2;
  limits.previews = 3;
  PreviewForwarder forwarder(getuid(), {}, limits);
  ASSERT_TRUE(forwarder.open("a", first_factory.take(), sandbox.port, PreviewProtocol::kTcp));
  ASSERT_TRUE(forwarder.open("a", core::UniqueFd(), sandbox.port, PreviewProtocol::kHttp));
  auto session_full = forwarder.open("a", core::UniqueFd(), sandbox.port, PreviewProtocol::kTcp);
  ASSERT_FALSE(session_full);
  EXPECT_NE(session_full.error().message.find("the most a session may have"), std::string::npos)
      << session_full.error().message;
  ASSERT_TRUE(forwarder.open("b", second_factory.take(), sandbox.port, PreviewProtocol::kTcp));
  auto server_full = forwarder.open("b", core::UniqueFd(), sandbox.port, PreviewProtocol::kHttp);
  ASSERT_FALSE(server_full);
  EXPECT_NE(server_full.error().message.find("--max-previews"), std::string::npos)
      << server_full.error().message;
  forwarder.close_group("a");
  EXPECT_TRUE(forwarder.open("b", core::UniqueFd(), sandbox.port, PreviewProtocol::kHttp));
}

}  // namespace
}  // namespace paddock::net::preview::preview_forwarder_test
