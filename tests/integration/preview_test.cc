// Previews (expose_port, docs/previews.md), end to end through `paddock mcp`: a live python
// session serves HTTP, a WebSocket echo and a TCP echo from threads of its interpreter, and
// the tests open them from the host as the user would, and attack them as another local user,
// a foreign page (its Host header), the sandbox itself, and a host listener on the same port.

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/unique_fd.h"
#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::preview_test {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Servers in threads of the live interpreter: they outlive the cell that starts them.
constexpr const char* kServers = R"py(
import base64, hashlib, http.server, os, socket, threading
os.makedirs('/work/site', exist_ok=True)
open('/work/site/index.html', 'w').write('hello from the sandbox')
class Site(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k): super().__init__(*a, directory='/work/site', **k)
    def log_message(self, *a): pass
site = http.server.ThreadingHTTPServer(('127.0.0.1', 8000), Site)
threading.Thread(target=site.serve_forever, daemon=True).start()
def listener(port):
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(('127.0.0.1', port)); l.listen(16); return l
def exact(c, n):
    b = b''
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d: raise EOFError
        b += d
    return b
def websocket(c):
    head = b''
    while b'\r\n\r\n' not in head:
        d = c.recv(4096)
        if not d: return
        head += d
    key = [l.split(b':', 1)[1].strip() for l in head.split(b'\r\n')
           if l.lower().startswith(b'sec-websocket-key:')][0]
    accept = base64.b64encode(hashlib.sha1(key + b'258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest())
    c.sendall(b'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n'
              b'Connection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + b'\r\n\r\n')
    try:
        while True:
            h = exact(c, 2); op = h[0] & 15; n = h[1] & 127
            if n == 126: n = int.from_bytes(exact(c, 2), 'big')
            mask = exact(c, 4) if h[1] & 128 else b'\0\0\0\0'
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(c, n)))
            if op == 8: return
            c.sendall(bytes([0x80 | op, n]) + data)
    except EOFError:
        pass
def echo(c):
    while True:
        d = c.recv(65536)
        if not d: break
        c.sendall(d)
    c.close()
def serve(port, handler):
    l = listener(port)
    def loop():
        while True:
            c, _ = l.accept()
            threading.Thread(target=handler, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
serve(8001, websocket)
serve(8002, echo)
print('serving')
)py";

// Connects to 127.0.0.1:`port`; an invalid fd if refused.
core::UniqueFd connect_loopback(std::uint16_t port) {
  core::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return {};
  return fd;
}

// What the peer sends until it closes, `until` appears, or 30 s pass.
std::string read_from(int fd, const std::string& until = "") {
  std::string got;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    if (!until.empty() && got.find(until) != std::string::npos) break;
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 1000) <= 0) continue;
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return got;
}

void send_all(int fd, const std::string& bytes) {
  ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
}

// One HTTP request to the preview, `Connection: close`; the whole response.
std::string http_get(std::uint16_t port, const std::string& target, const std::string& host,
                     const std::string& cookie = "") {
  core::UniqueFd fd = connect_loopback(port);
  if (!fd.valid()) return "(refused)";
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
  if (!cookie.empty()) request += "Cookie: " + cookie + "\r\n";
  request += "Connection: close\r\n\r\n";
  send_all(fd.get(), request);
  return read_from(fd.get());
}

struct Exposed {
  std::uint16_t host_port = 0;
  std::string url;
  std::string token;
  json answer;
};

Exposed expose(McpProcess& server, int id, const std::string& session, int port,
               const std::string& protocol = "http") {
  server.call(id, "expose_port", {{"session_id", session}, {"port", port}, {"protocol", protocol}});
  Exposed exposed;
  exposed.answer = server.wait_for(id);
  if (McpProcess::is_tool_error(exposed.answer)) return exposed;
  const json& structured = exposed.answer["result"]["structuredContent"];
  exposed.host_port = structured["host_port"].get<std::uint16_t>();
  exposed.url = structured["url"].get<std::string>();
  auto at = exposed.url.find("paddock_preview=");
  if (at != std::string::npos) exposed.token = exposed.url.substr(at + 16);
  return exposed;
}

// A server that allows previews, and a live python session running kServers.
class PreviewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json created;
    session_ = server_.open_session(1, {{"live", true}}, &created);
    ASSERT_FALSE(session_.empty()) << created.dump();
    server_.call(2, "execute_code", {{"session_id", session_}, {"code", kServers}});
    json started = server_.wait_for(2, std::chrono::seconds(120));
    ASSERT_NE(McpProcess::text_of(started).find("serving"), std::string::npos) << started.dump();
  }
  McpProcess server_{{"--allow-preview", "--idle-freeze", "1"}};
  std::string session_;
};

std::string host_of(std::uint16_t port) {
  return "127.0.0.1:" + std::to_string(port);
}

// Issue 53: without --allow-preview, expose_port is not listed, and a call to it is refused as
// an unknown tool is, naming the setting that lists it.
TEST(Preview, ExposePortIsNotOfferedUnlessTheUserAllowedIt) {
  McpProcess server;
  json created;
  std::string session = server.open_session(1, json::object(), &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  server.call(2, "expose_port", {{"session_id", session}, {"port", 8000}});
  json answer = server.wait_for(2);
  ASSERT_TRUE(answer.contains("error")) << answer.dump();
  std::string message = answer["error"].value("message", "");
  EXPECT_NE(message.find("not offered"), std::string::npos) << message;
  EXPECT_NE(message.find("--allow-preview"), std::string::npos) << message;
}

TEST_F(PreviewTest, HttpNeedsTheTokenThenItsCookieAndTheHostsOwnName) {
  Exposed site = expose(server_, 3, session_, 8000);
  ASSERT_NE(site.host_port, 0) << site.answer.dump();
  EXPECT_EQ(site.url, "http://127.0.0.1:" + std::to_string(site.host_port) +
                          "/?paddock_preview=" + site.token);
  EXPECT_GE(site.token.size(), 32u);
  EXPECT_TRUE(site.answer["result"]["structuredContent"]["accepting"].get<bool>());
  std::string host = host_of(site.host_port);

  // No token, a wrong one: refused, the sandbox's page never shown.
  std::string bare = http_get(site.host_port, "/", host);
  EXPECT_NE(bare.find("403"), std::string::npos) << bare;
  EXPECT_EQ(bare.find("hello from the sandbox"), std::string::npos);
  std::string wrong = http_get(site.host_port, "/?paddock_preview=" + std::string(32, '0'), host);
  EXPECT_NE(wrong.find("403"), std::string::npos) << wrong;

  // The token: a redirect without it, and the cookie.
  std::string first = http_get(site.host_port, "/?paddock_preview=" + site.token, host);
  EXPECT_NE(first.find("303 See Other"), std::string::npos) << first;
  EXPECT_NE(first.find("Location: /\r\n"), std::string::npos) << first;
  std::string cookie = "paddock_preview_" + std::to_string(site.host_port) + "=" + site.token;
  EXPECT_NE(first.find("Set-Cookie: " + cookie + "; Path=/; HttpOnly; SameSite=Strict"),
            std::string::npos)
      << first;
  std::string page = http_get(site.host_port, "/", host, cookie);
  EXPECT_NE(page.find("200"), std::string::npos) << page;
  EXPECT_NE(page.find("hello from the sandbox"), std::string::npos) << page;
  std::string by_name =
      http_get(site.host_port, "/", "localhost:" + std::to_string(site.host_port), cookie);
  EXPECT_NE(by_name.find("hello from the sandbox"), std::string::npos) << by_name;

  // A page under another name (DNS rebinding) brings its own Host: refused, cookie or not.
  std::string rebound =
      http_get(site.host_port, "/", "rebind.example:" + std::to_string(site.host_port), cookie);
  EXPECT_NE(rebound.find("421"), std::string::npos) << rebound;
  EXPECT_EQ(rebound.find("hello from the sandbox"), std::string::npos) << rebound;

  // get_session and list_sessions show it.
  server_.call(4, "get_session", {{"session_id", session_}});
  json state = server_.wait_for(4);
  ASSERT_EQ(state["result"]["structuredContent"]["exposed"].size(), 1u) << state.dump();
  EXPECT_EQ(state["result"]["structuredContent"]["exposed"][0]["host_port"], site.host_port);
  server_.call(5, "list_sessions", json::object());
  json listed = server_.wait_for(5);
  EXPECT_NE(McpProcess::text_of(listed).find(site.url), std::string::npos) << listed.dump();
}

TEST_F(PreviewTest, AWebSocketAndAPlainTcpEchoGoThrough) {
  Exposed socket_site = expose(server_, 3, session_, 8001);
  ASSERT_NE(socket_site.host_port, 0) << socket_site.answer.dump();
  core::UniqueFd ws = connect_loopback(socket_site.host_port);
  ASSERT_TRUE(ws.valid());
  send_all(ws.get(), "GET /chat HTTP/1.1\r\nHost: " + host_of(socket_site.host_port) +
                         "\r\nCookie: paddock_preview_" + std::to_string(socket_site.host_port) +
                         "=" + socket_site.token +
                         "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                         "dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  std::string upgraded = read_from(ws.get(), "\r\n\r\n");
  ASSERT_NE(upgraded.find("101 Switching Protocols"), std::string::npos) << upgraded;
  EXPECT_NE(upgraded.find("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), std::string::npos) << upgraded;
  // A masked text frame, "hello", and its echo unmasked.
  const unsigned char mask[4] = {1, 2, 3, 4};
  std::string frame = {static_cast<char>(0x81), static_cast<char>(0x80 | 5)};
  frame.append(reinterpret_cast<const char*>(mask), 4);
  std::string text = "hello";
  for (std::size_t i = 0; i < text.size(); ++i) frame += static_cast<char>(text[i] ^ mask[i % 4]);
  send_all(ws.get(), frame);
  std::string echoed = read_from(ws.get(), "hello");
  EXPECT_EQ(echoed, std::string("\x81\x05hello", 7));

  Exposed tcp = expose(server_, 4, session_, 8002, "tcp");
  ASSERT_NE(tcp.host_port, 0) << tcp.answer.dump();
  EXPECT_EQ(tcp.url, "tcp://127.0.0.1:" + std::to_string(tcp.host_port));
  core::UniqueFd plain = connect_loopback(tcp.host_port);
  ASSERT_TRUE(plain.valid());
  std::string big(1 << 20, 'x');
  std::thread writer([&] {
    send_all(plain.get(), big);
    shutdown(plain.get(), SHUT_WR);
  });
  std::string back = read_from(plain.get());
  writer.join();
  EXPECT_EQ(back.size(), big.size());
  EXPECT_EQ(back, big);
}

// The loopback addresses a client of this machine can use, and its other IPv4 addresses.
std::vector<std::string> host_addresses() {
  std::vector<std::string> found = {"127.0.0.1"};
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* item = list; item != nullptr; item = item->ifa_next) {
    if (item->ifa_addr == nullptr || item->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(item->ifa_addr)->sin_addr, text,
              sizeof text);
    if (std::string(text) != "127.0.0.1") found.push_back(text);
  }
  freeifaddrs(list);
  return found;
}

TEST_F(PreviewTest, TheSandboxCannotTurnTheForwardAroundToReachTheHost) {
  Exposed site = expose(server_, 3, session_, 8000);
  ASSERT_NE(site.host_port, 0) << site.answer.dump();
  std::string code = "import socket\nfor address in " + json(host_addresses()).dump() +
                     ":\n    s = socket.socket(); s.settimeout(3)\n    try:\n"
                     "        s.connect((address, " +
                     std::to_string(site.host_port) +
                     "))\n        print('REACHED', address)\n    except OSError as e:\n"
                     "        print('blocked', address, e)\n";
  server_.call(4, "execute_code", {{"session_id", session_}, {"code", code}});
  json answer = server_.wait_for(4, std::chrono::seconds(120));
  std::string out = McpProcess::text_of(answer);
  EXPECT_NE(out.find("blocked 127.0.0.1"), std::string::npos) << answer.dump();
  EXPECT_EQ(out.find("REACHED"), std::string::npos) << answer.dump();
}

TEST_F(PreviewTest, ThePortNamedIsTheSandboxsNeverTheHosts) {
  // A host listener, with a secret, on a port the sandbox does not listen on.
  core::UniqueFd host(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(host.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(host.get(), 8), 0);
  socklen_t size = sizeof address;
  getsockname(host.get(), reinterpret_cast<sockaddr*>(&address), &size);
  int port = ntohs(address.sin_port);

  Exposed tcp = expose(server_, 3, session_, port, "tcp");
  ASSERT_NE(tcp.host_port, 0) << tcp.answer.dump();
  EXPECT_FALSE(tcp.answer["result"]["structuredContent"]["accepting"].get<bool>())
      << tcp.answer.dump();
  core::UniqueFd client = connect_loopback(tcp.host_port);
  ASSERT_TRUE(client.valid());
  send_all(client.get(), "hello?");
  EXPECT_EQ(read_from(client.get()), "");  // closed: nothing listens in the sandbox
  Exposed site = expose(server_, 4, session_, port);
  std::string page =
      http_get(site.host_port, "/?paddock_preview=" + site.token, host_of(site.host_port));
  std::string cookie = "paddock_preview_" + std::to_string(site.host_port) + "=" + site.token;
  page = http_get(site.host_port, "/", host_of(site.host_port), cookie);
  EXPECT_NE(page.find("502"), std::string::npos) << page;
  // The host's listener never saw a connection.
  EXPECT_LT(accept4(host.get(), nullptr, nullptr, SOCK_CLOEXEC), 0);
  EXPECT_EQ(errno, EAGAIN);
}

// Issue 55 item 5: a port exposed before its app listens did not stay "nothing accepts
// connections there" after the app started: each expose_port call and each listing says what is
// true then, and again once the app stops.
TEST_F(PreviewTest, WhetherAPortAcceptsIsCheckedAtEachCallAndEachListing) {
  Exposed early = expose(server_, 3, session_, 9000);
  ASSERT_NE(early.host_port, 0) << early.answer.dump();
  EXPECT_FALSE(early.answer["result"]["structuredContent"]["accepting"].get<bool>());
  EXPECT_NE(McpProcess::text_of(early.answer).find("nothing accepts"), std::string::npos)
      << early.answer.dump();

  server_.call(4, "execute_code",
               {{"session_id", session_}, {"code", "late = listener(9000)\nprint('listening')"}});
  json started = server_.wait_for(4, std::chrono::seconds(60));
  ASSERT_NE(McpProcess::text_of(started).find("listening"), std::string::npos) << started.dump();

  Exposed again = expose(server_, 5, session_, 9000);
  EXPECT_EQ(again.host_port, early.host_port) << again.answer.dump();
  EXPECT_TRUE(again.answer["result"]["structuredContent"]["accepting"].get<bool>())
      << again.answer.dump();
  EXPECT_FALSE(again.answer["result"]["structuredContent"].contains("not_accepting"));
  EXPECT_NE(McpProcess::text_of(again.answer).find("something accepts"), std::string::npos)
      << again.answer.dump();
  // The port of each listing: {accepting, not_accepting or ""}.
  auto listed = [&](int id, const std::string& tool) {
    server_.call(id, tool, tool == "get_session" ? json{{"session_id", session_}} : json::object());
    json answer = server_.wait_for(id);
    const json& structured = answer["result"]["structuredContent"];
    const json* session = &structured;
    if (tool == "list_sessions") {
      for (const auto& item : structured["sessions"]) {
        if (item["session_id"] == session_) session = &item;
      }
    }
    for (const auto& port : session->value("exposed", json::array())) {
      if (port["port"] == 9000) {
        return std::make_pair(port["accepting"].get<bool>(), port.value("not_accepting", ""));
      }
    }
    ADD_FAILURE() << tool << " lists no port 9000: " << answer.dump();
    return std::make_pair(false, std::string("(not listed)"));
  };
  EXPECT_TRUE(listed(6, "get_session").first);
  EXPECT_TRUE(listed(7, "list_sessions").first);

  server_.call(8, "execute_code", {{"session_id", session_}, {"code", "late.close()"}});
  server_.wait_for(8, std::chrono::seconds(60));
  auto closed = listed(9, "list_sessions");
  EXPECT_FALSE(closed.first);
  EXPECT_NE(closed.second.find("9000"), std::string::npos) << closed.second;
  EXPECT_FALSE(listed(10, "get_session").first);
}

TEST_F(PreviewTest, TheForwardEndsWithTheSessionAndAnExposedSessionIsNotFrozen) {
  Exposed site = expose(server_, 3, session_, 8000);
  ASSERT_NE(site.host_port, 0) << site.answer.dump();
  std::string cookie = "paddock_preview_" + std::to_string(site.host_port) + "=" + site.token;
  // A session without a preview, idle as long, is frozen (--idle-freeze 1): by then the exposed
  // one would have been too.
  json created;
  std::string control = server_.open_session(10, {{"live", true}}, &created);
  ASSERT_FALSE(control.empty()) << created.dump();
  bool control_frozen = false;
  for (auto deadline = Clock::now() + std::chrono::seconds(90);
       !control_frozen && Clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    server_.call(11, "get_session", {{"session_id", control}});
    control_frozen = server_.wait_for(11)["result"]["structuredContent"].value("frozen", false);
  }
  ASSERT_TRUE(control_frozen);
  server_.call(4, "get_session", {{"session_id", session_}});
  json state = server_.wait_for(4);
  EXPECT_FALSE(state["result"]["structuredContent"]["frozen"].get<bool>()) << state.dump();
  std::string page = http_get(site.host_port, "/", host_of(site.host_port), cookie);
  EXPECT_NE(page.find("hello from the sandbox"), std::string::npos) << page;

  server_.call(5, "close_session", {{"session_id", session_}});
  json closed = server_.wait_for(5);
  ASSERT_FALSE(McpProcess::is_tool_error(closed)) << closed.dump();
  EXPECT_FALSE(connect_loopback(site.host_port).valid());
}

// Another local user: refused before any byte reaches the sandbox, with the token (HTTP) and
// at all (plain TCP). As root the client runs as the test users (runuser); unprivileged, as a
// subordinate id of the test's own user (a user namespace made with newuidmap), whose sockets
// the host sees as another user's. A user with neither (paddock-nosub) has no other user to be:
// the forwarder's own test covers the refusal there
// (PreviewForwarder.AnotherUsersConnectionsAreRefusedBeforeReachingTheSandbox).
TEST_F(PreviewTest, ASecondLocalUserIsRefusedEvenWithTheToken) {
  std::vector<std::vector<std::string>> as_others;
  const std::vector<std::string> as_subordinate = {
      "/usr/bin/unshare", "--user", "--map-users=auto", "--map-groups=auto",
      "--setuid",         "1",      "--setgid",         "1"};
  if (geteuid() == 0) {
    for (const char* user : {"paddock-nosub", "paddock-test"}) {
      if (getpwnam(user) != nullptr) as_others.push_back({"/usr/sbin/runuser", "-u", user, "--"});
    }
  } else {
    std::vector<std::string> probe = as_subordinate;
    probe.push_back("true");
    if (run_program(probe).exit_status == 0) as_others.push_back(as_subordinate);
  }
  if (as_others.empty()) {
    GTEST_SKIP() << "this user has no other user id to connect as (no subordinate ids); "
                    "PreviewForwarder.AnotherUsersConnectionsAreRefusedBeforeReachingTheSandbox "
                    "covers the refusal";
  }
  Exposed site = expose(server_, 3, session_, 8000);
  Exposed tcp = expose(server_, 4, session_, 8002, "tcp");
  ASSERT_NE(site.host_port, 0) << site.answer.dump();
  ASSERT_NE(tcp.host_port, 0) << tcp.answer.dump();
  std::string client =
      "import socket, sys\n"
      "def ask(port, data):\n"
      "    s = socket.create_connection(('127.0.0.1', port)); s.sendall(data)\n"
      "    s.settimeout(10); out = b''\n"
      "    try:\n"
      "        while True:\n"
      "            d = s.recv(4096)\n"
      "            if not d: break\n"
      "            out += d\n"
      "    except OSError: pass\n"
      "    return out\n"
      "print('HTTP', ask(" +
      std::to_string(site.host_port) + ", b'GET /?paddock_preview=" + site.token +
      " HTTP/1.1\\r\\nHost: 127.0.0.1:" + std::to_string(site.host_port) +
      "\\r\\nConnection: close\\r\\n\\r\\n'))\n"
      "print('TCP', ask(" +
      std::to_string(tcp.host_port) + ", b'ping'))\n";
  for (auto command : as_others) {
    command.insert(command.end(), {"python3", "-c", client});
    CliResult result = run_program(command);
    EXPECT_EQ(result.exit_status, 0) << result.err;
    EXPECT_NE(result.out.find("another user"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("303"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("TCP b''"), std::string::npos) << result.out;
  }
}

// A server that answers each request with the head it received (what the sandbox sees): /set
// sets a cookie, and tries to plant a preview's token cookie; /auth asks for credentials.
constexpr const char* kHeadEcho = R"py(
import http.server, threading
class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_GET(self):
        if self.path == '/fold':
            # A response head the strict parser refuses: a folded line that hides a token cookie.
            self.wfile.write(b'HTTP/1.1 200 OK\r\nX-A: 1\r\n Set-Cookie: paddock_preview_1=hidden-by-a-fold\r\n'
                             b'Content-Length: 0\r\n\r\n')
            return
        body = ('SEEN ' + self.requestline + '\n' + str(self.headers)).encode()
        self.send_response(401 if self.path == '/auth' else 200)
        if self.path == '/set':
            self.send_header('Set-Cookie', 'sid=sandbox1; Path=/')
            self.send_header('Set-Cookie', 'paddock_preview_1=planted; Path=/')
            self.send_header('Set-Cookie', '=paddock_preview_2=nameless; Path=/')
        if self.path == '/auth':
            self.send_header('WWW-Authenticate', 'Basic realm="echo"')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        body = b'BODY ' + data + b'\n' + ('SEEN ' + self.requestline + '\n').encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
echo = http.server.ThreadingHTTPServer(('127.0.0.1', 8010), Echo)
threading.Thread(target=echo.serve_forever, daemon=True).start()
print('echoing')
)py";

// What the sandbox's server saw of one request (kHeadEcho's answer), and the response's head.
std::string echo_get(const Exposed& echo, const std::string& target, const std::string& extra) {
  core::UniqueFd fd = connect_loopback(echo.host_port);
  if (!fd.valid()) return "(refused)";
  send_all(fd.get(), "GET " + target + " HTTP/1.1\r\nHost: " + host_of(echo.host_port) + "\r\n" +
                         extra + "\r\n");
  return read_from(fd.get());
}

TEST_F(PreviewTest, TheSandboxGetsOnlyTheCookiesItsServerSetNeverATokenNorAnotherAppsCookie) {
  server_.call(3, "execute_code", {{"session_id", session_}, {"code", kHeadEcho}});
  json started = server_.wait_for(3, std::chrono::seconds(120));
  ASSERT_NE(McpProcess::text_of(started).find("echoing"), std::string::npos) << started.dump();
  Exposed echo = expose(server_, 4, session_, 8010);
  Exposed other = expose(server_, 5, session_, 8000);  // another preview in the same browser
  ASSERT_NE(echo.host_port, 0) << echo.answer.dump();
  ASSERT_NE(other.host_port, 0) << other.answer.dump();
  std::string own = "paddock_preview_" + std::to_string(echo.host_port) + "=" + echo.token;
  std::string theirs = "paddock_preview_" + std::to_string(other.host_port) + "=" + other.token;
  // What a browser sends to any port of 127.0.0.1: every preview's token, another local
  // application's HttpOnly session cookie, and saved credentials.
  std::string jar = "Cookie: " + own + "; " + theirs + "; jupyter_session=host-app-secret\r\n" +
                    "Authorization: Basic aG9zdDpzZWNyZXQ=\r\n";
  std::string seen = echo_get(echo, "/", jar);
  ASSERT_NE(seen.find("SEEN GET / HTTP/1.1"), std::string::npos) << seen;
  EXPECT_EQ(seen.find(other.token), std::string::npos) << seen;
  EXPECT_EQ(seen.find(echo.token), std::string::npos) << seen;
  EXPECT_EQ(seen.find("host-app-secret"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("aG9zdDpzZWNyZXQ="), std::string::npos) << seen;
  EXPECT_NE(seen.find("Connection: close"), std::string::npos) << seen;

  // The sandbox's own cookie goes to the browser and comes back; a planted token cookie, named
  // or nameless, never reaches the browser.
  std::string set = echo_get(echo, "/set", jar);
  EXPECT_NE(set.find("Set-Cookie: sid=sandbox1; Path=/"), std::string::npos) << set;
  EXPECT_EQ(set.find("planted"), std::string::npos) << set;
  EXPECT_EQ(set.find("nameless"), std::string::npos) << set;
  seen = echo_get(echo, "/", "Cookie: " + own + "; sid=sandbox1; jupyter_session=x\r\n");
  EXPECT_NE(seen.find("Cookie: sid=sandbox1\n"), std::string::npos) << seen;
  // The same name with a value another port's page or server set is not the sandbox's.
  seen = echo_get(echo, "/", "Cookie: " + own + "; sid=set-by-another-port\r\n");
  EXPECT_EQ(seen.find("sid="), std::string::npos) << seen;

  // Credentials only once this preview's server asked for them.
  std::string asked = echo_get(echo, "/auth", jar);
  EXPECT_NE(asked.find("401"), std::string::npos) << asked;
  seen = echo_get(echo, "/", "Cookie: " + own + "\r\nAuthorization: Basic dTpw\r\n");
  EXPECT_NE(seen.find("Authorization: Basic dTpw"), std::string::npos) << seen;
}

// The proxy's strict rules hold for a preview's heads too: what the relay reads is what the
// sandbox's server reads, since the sandbox gets the head the relay rebuilt.
TEST_F(PreviewTest, AHeadTheStrictParserRefusesNeverReachesTheSandbox) {
  server_.call(3, "execute_code", {{"session_id", session_}, {"code", kHeadEcho}});
  json started = server_.wait_for(3, std::chrono::seconds(120));
  ASSERT_NE(McpProcess::text_of(started).find("echoing"), std::string::npos) << started.dump();
  Exposed echo = expose(server_, 4, session_, 8010);
  ASSERT_NE(echo.host_port, 0) << echo.answer.dump();
  std::string own =
      "Cookie: paddock_preview_" + std::to_string(echo.host_port) + "=" + echo.token + "\r\n";
  for (const std::string& extra :
       {own + "X-A: 1\nTransfer-Encoding: chunked\r\n",     // a bare LF
        own + "X-A: 1\r\n Transfer-Encoding: chunked\r\n",  // a folded line
        own + "Content-Length: 0\r\nContent-Length: 5\r\n", own + "X-A: a\x01z\r\n",
        own + "Host: elsewhere.example\r\n",
        // Request smuggling: a body framed two ways, or by a coding the relay does not frame.
        own + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
        own + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        own + "Transfer-Encoding: gzip, chunked\r\n"}) {
    std::string answer = echo_get(echo, "/", extra);
    EXPECT_NE(answer.find("400 Bad Request"), std::string::npos) << extra << answer;
    EXPECT_EQ(answer.find("SEEN"), std::string::npos) << extra << answer;
  }
  // The same rules for the sandbox's response head: the browser gets a 502, never the head.
  std::string folded = echo_get(echo, "/fold", own);
  EXPECT_NE(folded.find("502 Bad Gateway"), std::string::npos) << folded;
  EXPECT_EQ(folded.find("hidden-by-a-fold"), std::string::npos) << folded;
}

// A request's body goes to the sandbox whole, and nothing past it: a second request sent on
// the same connection (pipelined) would reach the sandbox's server unjudged and unrebuilt.
TEST_F(PreviewTest, ARequestsBodyGoesThroughAndNothingPastIt) {
  server_.call(3, "execute_code", {{"session_id", session_}, {"code", kHeadEcho}});
  json started = server_.wait_for(3, std::chrono::seconds(120));
  ASSERT_NE(McpProcess::text_of(started).find("echoing"), std::string::npos) << started.dump();
  Exposed echo = expose(server_, 4, session_, 8010);
  ASSERT_NE(echo.host_port, 0) << echo.answer.dump();
  std::string host = host_of(echo.host_port);
  std::string own =
      "Cookie: paddock_preview_" + std::to_string(echo.host_port) + "=" + echo.token + "\r\n";
  core::UniqueFd fd = connect_loopback(echo.host_port);
  ASSERT_TRUE(fd.valid());
  send_all(fd.get(), "POST /form HTTP/1.1\r\nHost: " + host + "\r\n" + own +
                         "Content-Length: 5\r\n\r\nhello"
                         "GET /smuggled HTTP/1.1\r\nHost: " +
                         host + "\r\nCookie: jupyter_session=host-app-secret\r\n\r\n");
  std::string answer = read_from(fd.get());
  EXPECT_NE(answer.find("BODY hello\nSEEN POST /form HTTP/1.1"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("smuggled"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("host-app-secret"), std::string::npos) << answer;
}

// A server that never accepts, and 130 clients of its preview that stay: every other preview
// still answers at once, and so does the stalled one's own listener, as its clients go.
TEST_F(PreviewTest, AServerThatNeverAcceptsOnlyStallsItsOwnPreview) {
  server_.call(3, "execute_code",
               {{"session_id", session_},
                {"code",
                 "import socket\nstuck = socket.socket()\nstuck.bind(('127.0.0.1', 8011))\n"
                 "stuck.listen(1024)\nprint('stuck')\n"}});
  json started = server_.wait_for(3, std::chrono::seconds(120));
  ASSERT_NE(McpProcess::text_of(started).find("stuck"), std::string::npos) << started.dump();
  Exposed stuck = expose(server_, 4, session_, 8011);
  Exposed site = expose(server_, 5, session_, 8000);
  ASSERT_NE(stuck.host_port, 0) << stuck.answer.dump();
  ASSERT_NE(site.host_port, 0) << site.answer.dump();
  std::string cookie = "paddock_preview_" + std::to_string(stuck.host_port) + "=" + stuck.token;
  std::vector<core::UniqueFd> clients;
  for (int i = 0; i < 130; ++i) {
    clients.push_back(connect_loopback(stuck.host_port));
    ASSERT_TRUE(clients.back().valid()) << i;
    send_all(clients.back().get(), "GET / HTTP/1.1\r\nHost: " + host_of(stuck.host_port) +
                                       "\r\nCookie: " + cookie + "\r\n\r\n");
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto timed_get = [&](const Exposed& preview) {
    core::UniqueFd fd = connect_loopback(preview.host_port);
    if (!fd.valid()) return std::string("(refused)");
    send_all(fd.get(), "GET / HTTP/1.1\r\nHost: " + host_of(preview.host_port) +
                           "\r\nCookie: paddock_preview_" + std::to_string(preview.host_port) +
                           "=" + preview.token + "\r\n\r\n");
    std::string got;
    for (auto deadline = Clock::now() + std::chrono::seconds(5); Clock::now() < deadline;) {
      pollfd ready{fd.get(), POLLIN, 0};
      if (poll(&ready, 1, 200) <= 0) continue;
      char chunk[4096];
      ssize_t n = read(fd.get(), chunk, sizeof chunk);
      if (n <= 0) break;
      got.append(chunk, static_cast<std::size_t>(n));
    }
    return got;
  };
  auto started_at = Clock::now();
  std::string page = timed_get(site);
  EXPECT_NE(page.find("hello from the sandbox"), std::string::npos) << "stalled: " << page;
  EXPECT_LT(Clock::now() - started_at, std::chrono::seconds(5));
  clients.clear();  // the clients go; the sandbox's server still never accepts
  page = timed_get(site);
  EXPECT_NE(page.find("hello from the sandbox"), std::string::npos) << "stalled: " << page;
}

// Each preview holds a host port and a socket of the sandbox's: a session has 16 at most, the
// server --max-previews, and the one past either is refused in one line.
TEST_F(PreviewTest, ASessionsPreviewsAreCappedInOneLine) {
  int id = 10;
  for (int port = 9000; port < 9016; ++port) {
    Exposed opened = expose(server_, id++, session_, port, "tcp");
    ASSERT_NE(opened.host_port, 0) << port << opened.answer.dump();
  }
  Exposed again = expose(server_, id++, session_, 9000, "tcp");  // the same preview: no new one
  EXPECT_NE(again.host_port, 0) << again.answer.dump();
  Exposed past = expose(server_, id++, session_, 9016, "tcp");
  ASSERT_TRUE(McpProcess::is_tool_error(past.answer)) << past.answer.dump();
  std::string said = McpProcess::text_of(past.answer);
  EXPECT_NE(said.find("has 16 previews open, the most a session may have"), std::string::npos)
      << said;
  EXPECT_EQ(said.find('\n'), std::string::npos) << said;
}

TEST(Preview, TheServersPreviewsAreCappedByMaxPreviews) {
  McpProcess server{{"--allow-preview", "--max-previews", "2"}};
  json created;
  std::string first = server.open_session(1, json::object(), &created);
  ASSERT_FALSE(first.empty()) << created.dump();
  std::string second = server.open_session(2, json::object(), &created);
  ASSERT_FALSE(second.empty()) << created.dump();
  EXPECT_NE(expose(server, 3, first, 9000, "tcp").host_port, 0);
  EXPECT_NE(expose(server, 4, second, 9000, "tcp").host_port, 0);
  Exposed past = expose(server, 5, second, 9001, "tcp");
  ASSERT_TRUE(McpProcess::is_tool_error(past.answer)) << past.answer.dump();
  EXPECT_NE(McpProcess::text_of(past.answer).find("--max-previews"), std::string::npos)
      << past.answer.dump();
  CliResult bad = run_cli({"mcp", "--max-previews", "0"});
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("--max-previews"), std::string::npos) << bad.err;
}

// `paddock run --publish`: the URL on stderr while the program runs, the same checks as a
// session's preview, and the port closed once the program ends.
TEST(Preview, RunPublishOpensThePortWhileTheProgramRuns) {
  int err[2];
  ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
  pid_t child = fork();
  if (child == 0) {
    dup2(err[1], STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    std::string binary = paddock_binary();
    const char* script =
        "import http.server\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        self.send_response(200); self.end_headers(); self.wfile.write(b'published')\n"
        "    def log_message(self, *a): pass\n"
        "s = http.server.HTTPServer(('127.0.0.1', 8000), H)\n"
        "s.handle_request()\n";
    execl(binary.c_str(), binary.c_str(), "run", "--timeout", "60", "--publish", "8000", "--",
          "/usr/bin/python3", "-c", script, nullptr);
    _exit(127);
  }
  close(err[1]);
  core::UniqueFd from_child(err[0]);
  std::string said = read_from(from_child.get(), "while the program runs");
  auto at = said.find("http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << said;
  std::string url = said.substr(at, said.find(' ', at) - at);
  auto port = static_cast<std::uint16_t>(std::stoi(url.substr(17)));
  std::string token = url.substr(url.find("paddock_preview=") + 16);
  std::string cookie = "paddock_preview_" + std::to_string(port) + "=" + token;
  std::string bare = http_get(port, "/", host_of(port));
  EXPECT_NE(bare.find("403"), std::string::npos) << bare;
  // The program may still be starting its server: a 502 until it listens.
  std::string page;
  for (auto deadline = Clock::now() + std::chrono::seconds(60); Clock::now() < deadline;) {
    page = http_get(port, "/", host_of(port), cookie);
    if (page.find("502") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(page.find("published"), std::string::npos) << page;
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(connect_loopback(port).valid());
}

TEST(Preview, RunPublishRefusesAMalformedPortInOneLine) {
  CliResult result = run_cli({"run", "--publish", "80-90", "--", "/bin/true"});
  EXPECT_NE(result.exit_status, 0);
  EXPECT_NE(result.err.find("[HOSTPORT:]PORT"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace paddock::testing::preview_test
