// Who may open a preview over HTTP (net/preview/access.h), and the preview port range.

#include "net/preview/access.h"

#include <gtest/gtest.h>

#include "net/preview/forwarder.h"

namespace paddock::net::preview::preview_access_test {
namespace {

constexpr std::uint16_t kPort = 41234;
const std::string kToken = "0123456789abcdef0123456789abcdef";

std::string head(const std::string& target, const std::string& host,
                 const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n";
}

TEST(PreviewAccess, TokensAreFreshAndLongEnough) {
  auto a = new_preview_token();
  auto b = new_preview_token();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), 32u);  // 128 bits
  EXPECT_NE(*a, *b);
}

TEST(PreviewAccess, TheTokenInTheQueryGetsARedirectWithoutItAndTheCookie) {
  auto verdict = judge_preview_request(
      head("/app/x?a=1&paddock_preview=" + kToken + "&b=2", "127.0.0.1:41234"), kPort, kToken);
  ASSERT_EQ(verdict.kind, PreviewVerdict::Kind::kRedirect);
  EXPECT_NE(verdict.response.find("Location: /app/x?a=1&b=2\r\n"), std::string::npos);
  EXPECT_NE(verdict.response.find("Set-Cookie: paddock_preview_41234=" + kToken +
                                  "; Path=/; HttpOnly; SameSite=Strict"),
            std::string::npos);
}

TEST(PreviewAccess, TheCookieLetsTheConnectionThrough) {
  auto verdict = judge_preview_request(
      head("/", "localhost:41234", "Cookie: a=b; paddock_preview_41234=" + kToken + "\r\n"), kPort,
      kToken);
  EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kForward);
}

TEST(PreviewAccess, NoTokenAWrongOneOrAnotherPortsCookieIsRefused) {
  for (const std::string& request :
       {head("/", "127.0.0.1:41234"),
        head("/?paddock_preview=" + std::string(32, '0'), "127.0.0.1:41234"),
        head("/", "127.0.0.1:41234", "Cookie: paddock_preview_41235=" + kToken + "\r\n"),
        head("/", "127.0.0.1:41234", "Cookie: paddock_preview_41234=" + kToken + "x\r\n")}) {
    auto verdict = judge_preview_request(request, kPort, kToken);
    EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse) << request;
    EXPECT_NE(verdict.response.find("403"), std::string::npos) << request;
  }
}

TEST(PreviewAccess, AForeignOrMissingOrRepeatedHostIsRefusedEvenWithTheCookie) {
  std::string cookie = "Cookie: paddock_preview_41234=" + kToken + "\r\n";
  for (const std::string& request :
       {head("/", "evil.example:41234", cookie), head("/", "127.0.0.1:41235", cookie),
        head("/", "127.0.0.1", cookie)}) {
    auto verdict = judge_preview_request(request, kPort, kToken);
    EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse) << request;
    EXPECT_NE(verdict.response.find("421"), std::string::npos) << request;
  }
  // No Host, or two: a malformed request to the strict parser (RFC 9112 section 3.2: 400).
  for (const std::string& request :
       {"GET / HTTP/1.1\r\n" + cookie + "\r\n",
        head("/", "127.0.0.1:41234", cookie + "Host: evil.example\r\n")}) {
    auto verdict = judge_preview_request(request, kPort, kToken);
    EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse) << request;
    EXPECT_NE(verdict.response.find("400"), std::string::npos) << request;
  }
}

// The proxy's strict parser (net/http1/request_head.h) judges a preview's heads: whatever it
// refuses, a sandbox's server that reads heads more loosely never gets to read.
TEST(PreviewAccess, TheStrictParsersRulesHoldEvenWithTheCookie) {
  std::string cookie = "Cookie: paddock_preview_41234=" + kToken + "\r\n";
  for (const std::string& request :
       {head("/", "127.0.0.1:41234", cookie + "X: 1\nTransfer-Encoding: chunked\r\n"),
        head("/", "127.0.0.1:41234", cookie + "X: 1\r\n Transfer-Encoding: chunked\r\n"),
        head("/", "127.0.0.1:41234", cookie + "X: 1\rTransfer-Encoding: chunked\r\n"),
        head("/", "127.0.0.1:41234", cookie + "Content-Length: 0\r\nContent-Length: 5\r\n"),
        head("/", "127.0.0.1:41234", cookie + "Transfer-Encoding: gzip, chunked\r\n"),
        head("/", "127.0.0.1:41234", cookie + "X: a\x01b\r\n"),
        head("/", "127.0.0.1:41234", cookie + "Bad Name: 1\r\n"),
        "GET / HTTP/2.0\r\nHost: 127.0.0.1:41234\r\n" + cookie + "\r\n"}) {
    auto verdict = judge_preview_request(request, kPort, kToken);
    EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse) << request;
    EXPECT_NE(verdict.response.find("400"), std::string::npos) << request;
  }
  auto passed = judge_preview_request(
      head("/a?b=1", "127.0.0.1:41234", cookie + "Content-Length: 3\r\n") + "abc", kPort, kToken);
  ASSERT_EQ(passed.kind, PreviewVerdict::Kind::kForward);
  EXPECT_EQ(passed.head.path, "/a?b=1");
  EXPECT_EQ(passed.head.content_length, 3u);
}

TEST(PreviewAccess, HeadsArriveInPiecesAndAreBounded) {
  EXPECT_EQ(
      judge_preview_request("GET / HTTP/1.1\r\nHost: 127.0.0.1:41234\r\n", kPort, kToken).kind,
      PreviewVerdict::Kind::kNeedMore);
  auto long_head = judge_preview_request(
      "GET / HTTP/1.1\r\nX: " + std::string(kMaxPreviewHead, 'a'), kPort, kToken);
  EXPECT_EQ(long_head.kind, PreviewVerdict::Kind::kRefuse);
  EXPECT_NE(long_head.response.find("431"), std::string::npos);
  EXPECT_EQ(judge_preview_request("nonsense\r\n\r\n", kPort, kToken).kind,
            PreviewVerdict::Kind::kRefuse);
}

TEST(PreviewAccess, ATargetCannotSmuggleAHeaderIntoTheRedirect) {
  auto verdict = judge_preview_request(
      head("/x\nSet-Cookie:evil?paddock_preview=" + kToken, "127.0.0.1:41234"), kPort, kToken);
  EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse);
  EXPECT_EQ(verdict.response.find("Set-Cookie"), std::string::npos);
}

// The fuzz target's first finding (CI, preview_request): a target whose text holds
// "Set-Cookie:" comes back inside the one Location line, never as a header of its own.
TEST(PreviewAccess, HeaderTextInTheTargetStaysInsideTheLocationLine) {
  auto verdict = judge_preview_request(
      head("/;;2222Set-Cookie:2222;-;?paddock_preview=" + kToken, "127.0.0.1:41234"), kPort,
      kToken);
  ASSERT_EQ(verdict.kind, PreviewVerdict::Kind::kRedirect);
  EXPECT_NE(verdict.response.find("\r\nLocation: /;;2222Set-Cookie:2222;-;\r\n"),
            std::string::npos);
  EXPECT_EQ(verdict.response.find("\r\nSet-Cookie:"), verdict.response.rfind("\r\nSet-Cookie:"));
}

TEST(PreviewAccess, TheRedirectNeverLeavesThePreviewsOrigin) {
  for (std::string target : {"//evil.example/x", "/\\evil.example/x"}) {
    auto verdict = judge_preview_request(
        head(target + "?paddock_preview=" + kToken, "127.0.0.1:41234"), kPort, kToken);
    ASSERT_EQ(verdict.kind, PreviewVerdict::Kind::kRedirect) << target;
    EXPECT_NE(verdict.response.find("\r\nLocation: /\r\n"), std::string::npos) << target;
  }
  // A target that is not a path (the absolute form) is no origin server's: refused.
  for (std::string target : {"http://evil.example/x", "evil.example/x"}) {
    auto verdict = judge_preview_request(
        head(target + "?paddock_preview=" + kToken, "127.0.0.1:41234"), kPort, kToken);
    EXPECT_EQ(verdict.kind, PreviewVerdict::Kind::kRefuse) << target;
    EXPECT_EQ(verdict.response.find("Location"), std::string::npos) << target;
  }
}

TEST(PreviewPorts, ARangeOrOnePort) {
  auto range = parse_preview_ports("8000-8099");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 8000);
  EXPECT_EQ(range->last, 8099);
  auto one = parse_preview_ports("9000");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->first, 9000);
  EXPECT_EQ(one->last, 9000);
  for (const char* bad : {"", "0", "8099-8000", "70000", "80-", "a-b", "8000-8099-9000"}) {
    auto refused = parse_preview_ports(bad);
    EXPECT_FALSE(refused) << bad;
    if (!refused) {
      EXPECT_NE(refused.error().message.find("8000-8099"), std::string::npos);
    }
  }
}

TEST(PreviewPorts, APublishNamesTheSandboxsPortAndMaybeTheHosts) {
  auto plain = parse_preview_publish("8000");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->port, 8000);
  EXPECT_EQ(plain->host_port, 0);
  EXPECT_EQ(plain->protocol, PreviewProtocol::kHttp);
  auto both = parse_preview_publish("9000:8000/tcp");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->host_port, 9000);
  EXPECT_EQ(both->port, 8000);
  EXPECT_EQ(both->protocol, PreviewProtocol::kTcp);
  for (const char* bad : {"", ":8000", "9000:", "8000-8001", "x", "8000/udp", "1:2:3"}) {
    auto refused = parse_preview_publish(bad);
    EXPECT_FALSE(refused) << bad;
    if (!refused) {
      EXPECT_NE(refused.error().message.find("[HOSTPORT:]PORT"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace paddock::net::preview::preview_access_test
