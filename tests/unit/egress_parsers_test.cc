// The egress allowlist's parsers (issue 19) on their own: patterns as users write them, the
// server name of a TLS ClientHello, and a proxy request's head. Each takes untrusted bytes, so
// each is also fed mutated inputs, which must never crash, hang or read out of bounds.

#include <gtest/gtest.h>

#include <random>

#include "net/egress/host_pattern.h"
#include "net/egress/tls_client_hello.h"
#include "net/http1/host_name.h"
#include "net/http1/request_head.h"

namespace paddock::net::egress::egress_parsers_test {
namespace {

core::IpPrefix address(const char* text) {
  return *core::parse_ip_prefix(text);
}

TEST(HostPattern, ParsesTheDocumentedForms) {
  auto name = parse_host_pattern("Example.ORG");
  ASSERT_TRUE(name) << name.error().message;
  EXPECT_EQ(name->name, "example.org");
  EXPECT_FALSE(name->wildcard);
  EXPECT_FALSE(name->port);
  auto wildcard = parse_host_pattern("*.example.org");
  ASSERT_TRUE(wildcard);
  EXPECT_TRUE(wildcard->wildcard);
  auto ported = parse_host_pattern("example.org:8443");
  ASSERT_TRUE(ported);
  EXPECT_EQ(*ported->port, 8443);
  auto range = parse_host_pattern("10.1.2.0/24");
  ASSERT_TRUE(range);
  EXPECT_TRUE(range->range);
  auto v6 = parse_host_pattern("[2001:db8::1]:443");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ(*v6->port, 443);
  EXPECT_TRUE(parse_host_pattern("2001:db8::/32"));
  EXPECT_TRUE(parse_host_pattern("127.0.0.1:8080"));
}

TEST(HostPattern, RefusesWhatItCannotMeanExactly) {
  for (const char* bad :
       {"", "*", "*.com", "exa mple.org", "-bad.org", "example.org:0", "example.org:70000",
        "example.org:", "10.1.2.3/8", "[::1", "[::1]x", "http://example.org", "example.org/path",
        "*.*.org", "a..b", "example.org.", "ex_ample.org"}) {
    auto parsed = parse_host_pattern(bad);
    EXPECT_FALSE(parsed) << bad;
    if (!parsed) {
      EXPECT_NE(parsed.error().message.find("use example.org, *.example.org"), std::string::npos);
    }
  }
}

TEST(HostPattern, AMirrorsUrlGivesItsServer) {
  EXPECT_EQ(*url_host_pattern("https://pypi.example.org/simple/"), "pypi.example.org");
  EXPECT_EQ(*url_host_pattern("HTTP://Mirror.Example:8080"), "mirror.example:8080");
  EXPECT_EQ(*url_host_pattern("http://u:p@10.0.0.5:3141/+simple?x#y"), "10.0.0.5:3141");
  EXPECT_EQ(*url_host_pattern("http://[2001:db8::1]:4873/"), "[2001:db8::1]:4873");
  for (const char* bad : {"ftp://x.org/", "x.org/simple", "https:///simple", "http://*.x.org/",
                          "http://x.org:99999/"}) {
    EXPECT_FALSE(url_host_pattern(bad).ok()) << bad;
  }
}

TEST(HostPattern, AllowsByNamePortAndRange) {
  std::vector<HostPattern> patterns;
  for (const char* text :
       {"pypi.org", "*.pythonhosted.org", "api.example.com:8443", "192.0.2.0/24"}) {
    patterns.push_back(*parse_host_pattern(text));
  }
  AllowList list(patterns);
  EXPECT_TRUE(list.allows_name("PyPI.org", 443));
  EXPECT_TRUE(list.allows_name("pypi.org", 80));
  EXPECT_FALSE(list.allows_name("pypi.org", 22));
  EXPECT_FALSE(list.allows_name("evilpypi.org", 443));
  EXPECT_FALSE(list.allows_name("pypi.org.evil.com", 443));
  EXPECT_TRUE(list.allows_name("files.pythonhosted.org", 443));
  EXPECT_FALSE(list.allows_name("pythonhosted.org", 443));  // the wildcard's own name is not in it
  EXPECT_FALSE(list.allows_name("xpythonhosted.org", 443));
  EXPECT_TRUE(list.allows_name("api.example.com", 8443));
  EXPECT_FALSE(list.allows_name("api.example.com", 443));
  EXPECT_TRUE(list.allows_address(address("192.0.2.7"), 443));
  EXPECT_FALSE(list.allows_address(address("192.0.3.7"), 443));
  EXPECT_FALSE(list.allows_address(address("127.0.0.1"), 443));
  EXPECT_FALSE(list.allows_name("192.0.2.7", 443));  // a range allows addresses, not names
  EXPECT_TRUE(AllowList().empty());
  // A forbidden range opens only to a pattern inside it.
  AllowList wide({*parse_host_pattern("0.0.0.0/0"), *parse_host_pattern("127.0.0.1:8080")});
  core::IpPrefix loopback = address("127.0.0.0/8");
  EXPECT_TRUE(wide.allows_address(address("127.0.0.1"), 443));
  EXPECT_FALSE(wide.allows_address_within(address("127.0.0.1"), 443, loopback));
  EXPECT_TRUE(wide.allows_address_within(address("127.0.0.1"), 8080, loopback));
  EXPECT_FALSE(wide.allows_address_within(address("127.0.0.2"), 8080, loopback));
}

// A ClientHello as a TLS 1.3 client sends it, with `name` in server_name (none when empty),
// split into records of at most `record` bytes.
std::string client_hello(const std::string& name, std::size_t record = 16384) {
  auto u16 = [](std::size_t v) { return std::string{char(v >> 8), char(v & 0xff)}; };
  std::string extensions;
  extensions += u16(0x000a) + u16(4) + u16(2) + u16(0x001d);  // supported_groups
  if (!name.empty()) {
    std::string entry = std::string(1, '\0') + u16(name.size()) + name;
    std::string list = u16(entry.size()) + entry;
    extensions += u16(0) + u16(list.size()) + list;
  }
  std::string body = u16(0x0303) + std::string(32, 'r') + std::string(1, '\0') + u16(2) +
                     u16(0x1301) + std::string(1, '\1') + std::string(1, '\0') +
                     u16(extensions.size()) + extensions;
  std::string handshake = std::string(1, '\1') + std::string(1, char(body.size() >> 16)) +
                          u16(body.size() & 0xffff) + body;
  std::string out;
  for (std::size_t at = 0; at < handshake.size(); at += record) {
    std::string piece = handshake.substr(at, record);
    out += std::string(1, '\x16') + u16(0x0301) + u16(piece.size()) + piece;
  }
  return out;
}

TEST(ClientHello, FindsTheServerName) {
  auto found = client_hello_server_name(client_hello("Registry.NPMJS.org"));
  EXPECT_EQ(found.state, ClientHelloName::State::kFound);
  EXPECT_EQ(found.name, "registry.npmjs.org");
  EXPECT_EQ(client_hello_server_name(client_hello("")).state, ClientHelloName::State::kNone);
  // Split over records of 50 bytes: put together again.
  auto split = client_hello_server_name(client_hello("pypi.org", 50));
  EXPECT_EQ(split.state, ClientHelloName::State::kFound);
  EXPECT_EQ(split.name, "pypi.org");
}

TEST(ClientHello, WaitsForTheRestAndRefusesWhatIsNotTls) {
  std::string hello = client_hello("pypi.org");
  for (std::size_t cut = 0; cut < hello.size(); ++cut) {
    EXPECT_EQ(client_hello_server_name(hello.substr(0, cut)).state,
              ClientHelloName::State::kNeedMore)
        << cut;
  }
  EXPECT_EQ(client_hello_server_name("GET / HTTP/1.1\r\n\r\n").state,
            ClientHelloName::State::kMalformed);
  std::string bad_name = client_hello("bad name.org");
  EXPECT_EQ(client_hello_server_name(bad_name).state, ClientHelloName::State::kMalformed);
}

TEST(RequestHead, ConnectAndAbsoluteForm) {
  auto connect =
      http1::parse_request_head("CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\nextra");
  ASSERT_EQ(connect.state, http1::RequestHead::State::kComplete) << connect.error;
  EXPECT_TRUE(connect.tunnel);
  EXPECT_EQ(connect.host, "registry.npmjs.org");
  EXPECT_EQ(connect.port, 443);
  EXPECT_EQ(connect.length,
            std::string("CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\n").size());
  auto v6 = http1::parse_request_head("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n");
  ASSERT_EQ(v6.state, http1::RequestHead::State::kComplete) << v6.error;
  EXPECT_EQ(v6.host, "2001:db8::1");
  auto get = http1::parse_request_head(
      "GET http://Deb.Debian.org/debian/dists?x=1 HTTP/1.1\r\nHost: deb.debian.org\r\n\r\n");
  ASSERT_EQ(get.state, http1::RequestHead::State::kComplete) << get.error;
  EXPECT_FALSE(get.tunnel);
  EXPECT_EQ(get.host, "deb.debian.org");
  EXPECT_EQ(get.port, 80);
  EXPECT_EQ(get.path, "/debian/dists?x=1");
  EXPECT_EQ(http1::parse_request_head("GET http://a.org HTTP/1.0\r\nHost: a.org\r\n\r\n").path,
            "/");
  EXPECT_EQ(http1::parse_request_head("GET / HTTP/1.1\r\nHost: a").state,
            http1::RequestHead::State::kNeedMore);
  // A plain request's body is framed by Content-Length alone, so the next head is found.
  auto post = http1::parse_request_head(
      "POST http://a.org/x HTTP/1.1\r\nHost: a.org\r\nContent-Length: 12\r\n\r\n");
  ASSERT_EQ(post.state, http1::RequestHead::State::kComplete) << post.error;
  EXPECT_EQ(post.content_length, 12u);
  for (const char* framing :
       {"Transfer-Encoding: chunked\r\n", "Content-Length: 1\r\nContent-Length: 2\r\n",
        "Content-Length: -1\r\n", "Content-Length: 1x\r\n"}) {
    auto bad = http1::parse_request_head(
        std::string("POST http://a.org/ HTTP/1.1\r\nHost: a.org\r\n") + framing + "\r\n");
    EXPECT_EQ(bad.state, http1::RequestHead::State::kMalformed) << framing;
  }
}

TEST(RequestHead, RefusesSmugglingShapes) {
  for (const char* bad : {
           "GET http://allowed.org/ HTTP/1.1\r\nHost: evil.org\r\n\r\n",
           "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nHost: evil.org\r\n\r\n",
           "GET /relative HTTP/1.1\r\nHost: allowed.org\r\n\r\n",
           "GET https://allowed.org/ HTTP/1.1\r\n\r\n",
           "GET http://user@evil.org@allowed.org/ HTTP/1.1\r\n\r\n",
           "CONNECT allowed.org HTTP/1.1\r\n\r\n",
           "CONNECT allowed.org:0 HTTP/1.1\r\n\r\n",
           "CONNECT allowed.org:443 HTTP/2\r\n\r\n",
           "GET http://allowed.org/ HTTP/1.1\r\n folded: line\r\n\r\n",
           "GET  http://allowed.org/ HTTP/1.1\r\n\r\n",
       }) {
    auto head = http1::parse_request_head(bad);
    EXPECT_EQ(head.state, http1::RequestHead::State::kMalformed) << bad;
  }
  std::string huge = "GET http://a.org/ HTTP/1.1\r\n" + std::string(http1::kMaxRequestHead, 'x');
  EXPECT_EQ(http1::parse_request_head(huge).state, http1::RequestHead::State::kMalformed);
  std::string many = "GET http://a.org/ HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X-A: b\r\n";
  EXPECT_EQ(http1::parse_request_head(many + "\r\n").state, http1::RequestHead::State::kMalformed);
}

// What the proxy checks must be what the upstream server reads: a head that a lenient server
// could split into other lines (a bare LF, a folded line) or frame otherwise (two lengths, a
// transfer coding) is refused, and so is a plain request whose host is named by no Host header.
TEST(RequestHead, RefusesHeadsAnUpstreamCouldReadDifferently) {
  using namespace std::string_literals;  // for the NUL below
  for (
      const std::string& bad : std::vector<std::string>{
          "GET http://allowed.org/ HTTP/1.1\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.0\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nX-A: 1\nHost: evil.org\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nX-A: 1\nHost: evil.org\r\nHost: allowed.org\r\n\r\n",
          "POST http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nContent-Length: 5\r\n"
          "X-A: 1\nTransfer-Encoding: chunked\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\nHost: allowed.org\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\n\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\rX-A: 1\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nX-A: 1\r\n\tfolded\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nHost: allowed.org\r\n\r\n",
          "POST http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nContent-Length: 3\r\n"
          "Content-Length: 3\r\n\r\n",
          "POST http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nContent-Length: 3, 3\r\n\r\n",
          "POST http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nContent-Length: 3\r\n"
          "Transfer-Encoding: identity\r\n\r\n",
          "GET http://allowed.org/ HTTP/1.1\r\nHost: allowed.org\r\nX-A: a\0b\r\n\r\n"s,
          "GET http://allowed.org/ HTTP/1.1\r\nHost : allowed.org\r\n\r\n",
      }) {
    auto head = http1::parse_request_head(bad);
    EXPECT_EQ(head.state, http1::RequestHead::State::kMalformed) << bad;
  }
  // A bare LF is refused as soon as it arrives, not after a blank line that may never come.
  EXPECT_EQ(http1::parse_request_head("GET http://allowed.org/ HTTP/1.1\r\nX-A: 1\nHost").state,
            http1::RequestHead::State::kMalformed);
}

// What goes upstream is rebuilt from what was parsed: origin form, the headers one per CRLF line
// with the blanks around values gone, Proxy-* left out, and nothing of the client's bytes.
TEST(RequestHead, TheUpstreamHeadIsRebuiltFromTheParsedOne) {
  auto head = http1::parse_request_head(
      "POST http://a.org:8080/x?y=1 HTTP/1.1\r\nHost: a.org:8080\r\nX-Tab:\t v \t\r\n"
      "Proxy-Authorization: Basic eA==\r\nproxy-connection: keep-alive\r\n"
      "Content-Length: 2\r\n\r\nhi");
  ASSERT_EQ(head.state, http1::RequestHead::State::kComplete) << head.error;
  EXPECT_EQ(http1::upstream_request_head(head),
            "POST /x?y=1 HTTP/1.1\r\nHost: a.org:8080\r\nX-Tab: v\r\nContent-Length: 2\r\n\r\n");
}

// Random mutations of valid inputs: any answer will do, but no crash, no hang, and a found name
// is always a host name. Run under ASan in a sanitizer build, this is the parsers' fuzzer.
TEST(EgressParsers, SurviveMutatedInput) {
  std::mt19937 random(12345);
  std::vector<std::string> seeds = {
      client_hello("registry.npmjs.org"), client_hello("pypi.org", 40),
      "CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n",
      "GET http://deb.debian.org/x HTTP/1.1\r\nHost: deb.debian.org\r\n\r\n"};
  for (int round = 0; round < 20000; ++round) {
    std::string input = seeds[random() % seeds.size()];
    int edits = 1 + static_cast<int>(random() % 8);
    for (int e = 0; e < edits && !input.empty(); ++e) {
      std::size_t at = random() % input.size();
      switch (random() % 4) {
        case 0:
          input[at] = static_cast<char>(random());
          break;
        case 1:
          input.erase(at, 1 + random() % 8);
          break;
        case 2:
          input.insert(at, std::string(1 + random() % 8, static_cast<char>(random())));
          break;
        default:
          input.resize(at);
          break;
      }
    }
    auto hello = client_hello_server_name(input);
    if (hello.state == ClientHelloName::State::kFound) {
      EXPECT_TRUE(http1::is_host_name(hello.name));
    }
    auto head = http1::parse_request_head(input);
    if (head.state == http1::RequestHead::State::kComplete) {
      EXPECT_LE(head.length, input.size());
    }
    (void)parse_host_pattern(input.substr(0, 300));
  }
}

}  // namespace
}  // namespace paddock::net::egress::egress_parsers_test
