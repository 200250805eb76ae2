// What a preview's relay lets through of the heads it carries (net/preview/headers.h).

#include "net/preview/headers.h"

#include <gtest/gtest.h>

namespace paddock::net::preview::preview_headers_test {
namespace {

http1::RequestHead request(const std::string& headers) {
  http1::RequestHead head = http1::parse_request_head(
      "GET /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:41234\r\n" + headers + "\r\n",
      http1::RequestForm::kOrigin);
  EXPECT_EQ(head.state, http1::RequestHead::State::kComplete) << head.error;
  return head;
}

PreviewResponseHead response(const std::string& text) {
  return parse_preview_response_head(text);
}

TEST(PreviewHeaders, TheSandboxGetsOnlyTheCookiePairsItsServerSet) {
  PreviewGrants grants;
  grants.cookies = {"sid=abc", "theme=dark"};
  std::string sent = preview_request_head(
      request("Cookie: paddock_preview_41234=t0ken; sid=abc; other_app=secret; theme=light; "
              "paddock_preview_9=x\r\nAccept: */*\r\n"),
      grants);
  EXPECT_EQ(sent,
            "GET /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:41234\r\nCookie: sid=abc\r\nAccept: "
            "*/*\r\nConnection: close\r\n\r\n");
  // None of them the server's: no Cookie header at all.
  sent = preview_request_head(request("Cookie: other_app=secret\r\n"), grants);
  EXPECT_EQ(sent.find("Cookie"), std::string::npos) << sent;
}

TEST(PreviewHeaders, CredentialsGoOnlyOnceTheServerAskedAndHopByHopHeadersNever) {
  PreviewGrants grants;
  http1::RequestHead head = request(
      "Authorization: Basic dTpw\r\nProxy-Authorization: Basic eDp5\r\nConnection: keep-alive, "
      "X-Secret\r\nKeep-Alive: timeout=5\r\nX-Secret: 1\r\n");
  std::string sent = preview_request_head(head, grants);
  EXPECT_EQ(sent.find("Authorization"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("keep-alive"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("Keep-Alive"), std::string::npos) << sent;
  EXPECT_NE(sent.find("\r\nConnection: close\r\n"), std::string::npos) << sent;
  PreviewResponseHead asked =
      response("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\n\r\n");
  ASSERT_EQ(asked.state, PreviewResponseHead::State::kComplete) << asked.error;
  preview_response_head(asked, grants);
  EXPECT_TRUE(grants.authorization);
  sent = preview_request_head(head, grants);
  EXPECT_NE(sent.find("\r\nAuthorization: Basic dTpw\r\n"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("Proxy-Authorization"), std::string::npos) << sent;
}

TEST(PreviewHeaders, AWebSocketKeepsItsUpgrade) {
  http1::RequestHead head =
      request("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: a2V5\r\n");
  EXPECT_TRUE(asks_upgrade(head));
  std::string sent = preview_request_head(head, {});
  EXPECT_NE(sent.find("\r\nUpgrade: websocket\r\n"), std::string::npos) << sent;
  EXPECT_NE(sent.find("\r\nConnection: Upgrade\r\n"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("close"), std::string::npos) << sent;
  // Any other protocol (h2c) would carry the connection's later requests past the relay.
  http1::RequestHead h2c = request("Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n");
  EXPECT_FALSE(asks_upgrade(h2c));
  sent = preview_request_head(h2c, {});
  EXPECT_EQ(sent.find("Upgrade"), std::string::npos) << sent;
  EXPECT_NE(sent.find("\r\nConnection: close\r\n"), std::string::npos) << sent;
  PreviewGrants grants;
  PreviewResponseHead switched = response(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
  ASSERT_EQ(switched.state, PreviewResponseHead::State::kComplete) << switched.error;
  EXPECT_EQ(preview_response_head(switched, grants),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
            "Upgrade\r\n\r\n");
}

TEST(PreviewHeaders, TheServersCookiesAreKeptButNoTokenCookieNamedOrNameless) {
  PreviewGrants grants;
  PreviewResponseHead head = response(
      "HTTP/1.1 200 OK\r\nSet-Cookie: sid=abc; Path=/; HttpOnly\r\nSet-Cookie: "
      "paddock_preview_41235=planted; Path=/\r\nSet-Cookie: =paddock_preview_41235=x\r\n"
      "Set-Cookie: bare\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok");
  ASSERT_EQ(head.state, PreviewResponseHead::State::kComplete) << head.error;
  EXPECT_EQ(preview_response_head(head, grants),
            "HTTP/1.1 200 OK\r\nSet-Cookie: sid=abc; Path=/; HttpOnly\r\nContent-Length: "
            "2\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(grants.cookies.size(), 1u);
  EXPECT_EQ(grants.cookies.front(), "sid=abc");
}

TEST(PreviewHeaders, WhatAServerSetIsBounded) {
  PreviewGrants grants;
  for (std::size_t i = 0; i < kMaxPreviewCookies + 10; ++i) {
    PreviewResponseHead head =
        response("HTTP/1.1 204 No Content\r\nSet-Cookie: c" + std::to_string(i) + "=v\r\n\r\n");
    preview_response_head(head, grants);
  }
  PreviewResponseHead big =
      response("HTTP/1.1 204 No Content\r\nSet-Cookie: big=" + std::string(kMaxPreviewCookie, 'x') +
               "\r\n\r\n");
  preview_response_head(big, grants);
  ASSERT_EQ(grants.cookies.size(), kMaxPreviewCookies);
  EXPECT_EQ(grants.cookies.front(), "c10=v");  // the oldest went first
  EXPECT_EQ(grants.cookies.back(), "c73=v");
  // Large ones: at most kMaxPreviewCookieBytes together, the newest kept.
  for (int i = 0; i < 20; ++i) {
    PreviewResponseHead head =
        response("HTTP/1.1 204 No Content\r\nSet-Cookie: l" + std::to_string(i) + "=" +
                 std::string(4000, 'x') + "\r\n\r\n");
    preview_response_head(head, grants);
  }
  std::size_t total = 0;
  for (const auto& pair : grants.cookies) total += pair.size();
  EXPECT_LE(total, kMaxPreviewCookieBytes);
  EXPECT_EQ(grants.cookies.back().substr(0, 4), "l19=");
}

TEST(PreviewHeaders, AResponseHeadIsReadStrictly) {
  EXPECT_EQ(response("HTTP/1.1 200 OK\r\nA: b\r\n").state, PreviewResponseHead::State::kNeedMore);
  PreviewResponseHead interim = response("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n");
  ASSERT_EQ(interim.state, PreviewResponseHead::State::kComplete);
  EXPECT_EQ(interim.status, 100);
  EXPECT_EQ(interim.length, 25u);
  PreviewGrants grants;
  EXPECT_EQ(preview_response_head(interim, grants), "HTTP/1.1 100 Continue\r\n\r\n");
  for (const std::string& bad :
       {std::string("HTTP/1.1 200 OK\nSet-Cookie: paddock_preview_1=x\r\n\r\n"),
        std::string("HTTP/1.1 200 OK\r\nX: 1\rSet-Cookie: paddock_preview_1=x\r\n\r\n"),
        std::string("HTTP/1.1 200 OK\r\nX: 1\r\n Set-Cookie: paddock_preview_1=x\r\n\r\n"),
        std::string("HTTP/1.1 200 OK\r\nX: a\x01z\r\n\r\n"),
        std::string("HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n"), std::string("HTTP/2 200 OK\r\n\r\n"),
        std::string("HTTP/1.1 2000 OK\r\n\r\n"), std::string("HTTP/1.1 20 OK\r\n\r\n"),
        std::string("ICY 200 OK\r\n\r\n"),
        "HTTP/1.1 200 OK\r\nX: " + std::string(kMaxPreviewResponseHead, 'a')}) {
    PreviewResponseHead head = response(bad);
    EXPECT_EQ(head.state, PreviewResponseHead::State::kMalformed) << bad;
    EXPECT_FALSE(head.error.empty());
  }
  PreviewResponseHead no_reason = response("HTTP/1.0 204\r\n\r\n");
  ASSERT_EQ(no_reason.state, PreviewResponseHead::State::kComplete) << no_reason.error;
  EXPECT_EQ(no_reason.status, 204);
}

}  // namespace
}  // namespace paddock::net::preview::preview_headers_test
