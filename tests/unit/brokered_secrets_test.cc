// Brokered secrets' pure parts (docs/secrets.md): the --secret form, the placeholders and their
// replacement, the framing of request bodies, and the requests an intercepted connection passes
// on. The sandbox controls every byte of those requests: each refusal here is one way a
// placeholder could otherwise leave unread, or a value go where it should not.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "cli/command_line.h"
#include "cli/mcp_settings.h"
#include "net/egress/brokered_requests.h"
#include "net/egress/brokered_secrets.h"
#include "net/egress/intercepted_tunnel.h"
#include "net/http1/body_framing.h"

namespace paddock::net::egress::brokered_secrets_test {
namespace {

constexpr const char* kValue = "real-value-0123456789";
constexpr const char* kPlaceholder = "paddock-secret-TOKEN-00112233445566778899aabbccddeeff";
constexpr const char* kOtherPlaceholder = "paddock-secret-OTHER-ffeeddccbbaa99887766554433221100";

SandboxSecrets test_secrets() {
  auto token = parse_secret_spec("TOKEN=REAL_TOKEN@api.test,api.test:8443");
  auto other = parse_secret_spec("OTHER=REAL_OTHER@other.test");
  EXPECT_TRUE(token && other);
  auto list = std::make_shared<const std::vector<BrokeredSecret>>(
      std::vector<BrokeredSecret>{{*token, kValue}, {*other, "other-value-9876543210"}});
  return SandboxSecrets(list, {kPlaceholder, kOtherPlaceholder});
}

TEST(SecretSpec, ParsesNameVariableAndHosts) {
  auto spec = parse_secret_spec("GITHUB_TOKEN=GH_TOKEN@API.github.com,uploads.github.com:8443");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->name, "GITHUB_TOKEN");
  EXPECT_EQ(spec->variable, "GH_TOKEN");
  ASSERT_EQ(spec->parsed_hosts.size(), 2u);
  EXPECT_EQ(spec->parsed_hosts[0], (SecretHost{"api.github.com", 443}));
  EXPECT_EQ(spec->parsed_hosts[1], (SecretHost{"uploads.github.com", 8443}));
}

TEST(SecretSpec, RefusesWhatIsNotExactlyOneNameAndExactHosts) {
  for (const char* bad :
       {"TOKEN", "TOKEN=VAR", "TOKEN@host.test", "=VAR@host.test", "TOKEN=@host.test",
        "TO-KEN=VAR@host.test", "TOKEN=VAR@", "TOKEN=VAR@*.host.test", "TOKEN=VAR@10.0.0.0/8",
        "TOKEN=VAR@1.2.3.4", "PADDOCK_X=VAR@host.test", "1TOKEN=VAR@host.test"}) {
    auto spec = parse_secret_spec(bad);
    EXPECT_FALSE(spec) << bad;
    if (!spec) {
      EXPECT_EQ(spec.error().message.find('\n'), std::string::npos);
    }
  }
}

TEST(SandboxSecrets, DrawsAPlaceholderPerSandbox) {
  auto spec = parse_secret_spec("TOKEN=REAL@api.test");
  auto list = std::make_shared<const std::vector<BrokeredSecret>>(
      std::vector<BrokeredSecret>{{*spec, kValue}});
  auto first = SandboxSecrets::draw(list);
  auto second = SandboxSecrets::draw(list);
  ASSERT_TRUE(first && second);
  ASSERT_EQ(first->env().size(), 1u);
  EXPECT_TRUE(first->env()[0].starts_with("TOKEN=paddock-secret-TOKEN-"));
  EXPECT_EQ(first->env()[0].size(), std::string("TOKEN=paddock-secret-TOKEN-").size() + 32);
  EXPECT_NE(first->env(), second->env());
  EXPECT_EQ(first->env()[0].find(kValue), std::string::npos);
}

TEST(SandboxSecrets, ReplacesOnlyForTheSecretsOwnHostAndPort) {
  SandboxSecrets secrets = test_secrets();
  EXPECT_TRUE(secrets.brokers("api.test", 443));
  EXPECT_TRUE(secrets.brokers("api.test", 8443));
  EXPECT_FALSE(secrets.brokers("api.test", 80));
  EXPECT_FALSE(secrets.brokers("evil.test", 443));
  std::vector<SecretUse> uses;
  std::string text =
      std::string("Bearer ") + kPlaceholder + " and " + kPlaceholder + " and " + kOtherPlaceholder;
  secrets.substitute(text, "api.test", 443, uses);
  EXPECT_EQ(text, std::string("Bearer ") + kValue + " and " + kValue + " and " + kOtherPlaceholder);
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0], (SecretUse{"TOKEN", "api.test", 443, true, ""}));
  EXPECT_EQ(uses[1].name, "OTHER");
  EXPECT_FALSE(uses[1].substituted);
  std::string elsewhere = kPlaceholder;
  secrets.substitute(elsewhere, "api.test", 80, uses);
  EXPECT_EQ(elsewhere, kPlaceholder);
}

TEST(BodyFraming, SizedAndChunkedInPiecesOfAnySize) {
  std::string chunked = "4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  for (std::size_t piece = 1; piece <= chunked.size(); ++piece) {
    http1::BodyFraming framing = http1::BodyFraming::chunked();
    std::string content;
    std::size_t taken = 0;
    while (framing.state() == http1::BodyFraming::State::kMore && taken < chunked.size()) {
      std::string_view next = std::string_view(chunked).substr(taken, piece);
      taken += framing.take(next, &content);
    }
    ASSERT_EQ(framing.state(), http1::BodyFraming::State::kDone) << piece;
    EXPECT_EQ(content, "Wikipedia");
    EXPECT_EQ(chunked.substr(taken), "NEXT") << piece;
  }
  http1::BodyFraming sized = http1::BodyFraming::sized(3);
  EXPECT_EQ(sized.take("abcdef"), 3u);
  EXPECT_EQ(sized.state(), http1::BodyFraming::State::kDone);
}

TEST(BodyFraming, RefusesWhatCouldBeReadTwoWays) {
  for (const char* bad :
       {"4\nWiki\r\n0\r\n\r\n", "4\r\nWikiX\r\n0\r\n\r\n", "g\r\n", "-1\r\n",
        "1000000000000000\r\n", "4\r\nWiki\r\n0\r\nbad\nline\r\n\r\n", "4 x\r\n"}) {
    http1::BodyFraming framing = http1::BodyFraming::chunked();
    framing.take(bad);
    EXPECT_EQ(framing.state(), http1::BodyFraming::State::kMalformed) << bad;
  }
  http1::BodyFraming long_line = http1::BodyFraming::chunked();
  long_line.take(std::string(http1::kMaxChunkLine + 10, '0'));
  EXPECT_EQ(long_line.state(), http1::BodyFraming::State::kMalformed);
  http1::BodyFraming long_trailer = http1::BodyFraming::chunked();
  long_trailer.take("0\r\n" + std::string(http1::kMaxChunkTrailer + 10, 'x'));
  EXPECT_EQ(long_trailer.state(), http1::BodyFraming::State::kMalformed);
}

struct Fed {
  std::optional<std::string> refused;
  std::string upstream;
  std::string client;
};

// Feeds `bytes` in pieces of `piece` bytes, as writes or TLS records would bring them.
Fed feed(BrokeredRequests& requests, const std::string& bytes, std::size_t piece) {
  Fed fed;
  std::string pending;
  for (std::size_t at = 0; at < bytes.size() && !fed.refused; at += piece) {
    pending += bytes.substr(at, piece);
    fed.refused = requests.feed(pending, fed.upstream, fed.client, 1 << 20);
  }
  return fed;
}

TEST(BrokeredRequests, EveryRequestOfAKeptAliveConnectionIsSubstitutedWhateverItsPieces) {
  SandboxSecrets secrets = test_secrets();
  std::string requests =
      std::string("GET /a HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer ") + kPlaceholder +
      "\r\n\r\n" +
      "POST /b HTTP/1.1\r\nHost: api.test:443\r\nContent-Length: 5\r\nX-Key: " + kPlaceholder +
      "\r\n\r\nhello" +
      "PUT /c HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: "
      "chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
      "GET /d HTTP/1.1\r\nHost: api.test\r\nProxy-Authorization: x\r\nX-Key: " + kPlaceholder +
      "\r\n\r\n";
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{64}, requests.size()}) {
    BrokeredRequests brokered(secrets, "api.test", 443, false);
    Fed fed = feed(brokered, requests, piece);
    ASSERT_FALSE(fed.refused) << *fed.refused;
    EXPECT_EQ(fed.upstream.find(kPlaceholder), std::string::npos) << fed.upstream;
    std::size_t values = 0;
    for (auto at = fed.upstream.find(kValue); at != std::string::npos;
         at = fed.upstream.find(kValue, at + 1)) {
      ++values;
    }
    EXPECT_EQ(values, 3u) << piece;
    EXPECT_NE(fed.upstream.find("hello"), std::string::npos);
    EXPECT_NE(fed.upstream.find("3\r\nabc\r\n0\r\n\r\n"), std::string::npos);
    EXPECT_EQ(fed.upstream.find("Proxy-Authorization"), std::string::npos);
    EXPECT_TRUE(brokered.between_requests());
    auto uses = brokered.take_uses();
    ASSERT_EQ(uses.size(), 1u);
    EXPECT_TRUE(uses[0].substituted);
  }
}

TEST(BrokeredRequests, ForwardedHeadersAreDropped) {
  SandboxSecrets secrets = test_secrets();
  BrokeredRequests brokered(secrets, "api.test", 443, false);
  Fed fed = feed(brokered,
                 "GET / HTTP/1.1\r\nHost: api.test\r\nForwarded: host=evil.test\r\n"
                 "X-Forwarded-Host: evil.test\r\nFORWARDED: for=1.2.3.4\r\nX-Keep: yes\r\n\r\n",
                 9);
  ASSERT_FALSE(fed.refused) << *fed.refused;
  EXPECT_EQ(fed.upstream, "GET / HTTP/1.1\r\nHost: api.test\r\nX-Keep: yes\r\n\r\n");
}

// The bodies every connection of a sandbox holds are counted together: past the budget, a 503
// that says so; a body sent on, or refused, gives back what it held.
TEST(BrokeredRequests, HeldBodiesShareTheSandboxsBudget) {
  SandboxSecrets secrets = test_secrets();
  HeldBodyBudget budget(1 << 20);
  std::string head =
      "POST / HTTP/1.1\r\nHost: api.test\r\nContent-Length: " + std::to_string(600 << 10) +
      "\r\n\r\n";
  auto first = std::make_unique<BrokeredRequests>(secrets, "api.test", 443, true, &budget);
  Fed fed = feed(*first, head + std::string(500 << 10, 'x'), 16 << 10);
  ASSERT_FALSE(fed.refused) << *fed.refused;
  EXPECT_GE(budget.held(), 500u << 10);
  BrokeredRequests second(secrets, "api.test", 443, true, &budget);
  Fed over = feed(second, head + std::string(600 << 10, 'x'), 16 << 10);
  ASSERT_TRUE(over.refused);
  EXPECT_TRUE(over.refused->starts_with("HTTP/1.1 503")) << *over.refused;
  EXPECT_NE(over.refused->find("hold 1 MiB of bodies already"), std::string::npos) << *over.refused;
  EXPECT_TRUE(over.upstream.empty());
  std::size_t first_holds = budget.held();
  first.reset();  // the connection's end gives back what it held
  EXPECT_EQ(budget.held(), 0u) << first_holds;
  BrokeredRequests third(secrets, "api.test", 443, true, &budget);
  Fed whole = feed(third, head + std::string(600 << 10, 'x'), 16 << 10);
  ASSERT_FALSE(whole.refused) << *whole.refused;
  EXPECT_NE(whole.upstream.find("Content-Length: " + std::to_string(600 << 10)), std::string::npos);
  EXPECT_EQ(budget.held(), 0u);  // sent on: nothing held any more
  // A request left unfinished is answered 408 at its deadline.
  BrokeredRequests fourth(secrets, "api.test", 443, true, &budget);
  Fed part = feed(fourth, head + "xyz", 1000);
  EXPECT_FALSE(fourth.between_requests());
  std::string answer = fourth.time_out(std::chrono::seconds(30));
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408 Request Timeout")) << answer;
  EXPECT_NE(answer.find("the rest of the request did not come within 30 s"), std::string::npos);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(BrokeredRequests, AHostHeaderForAnotherHostIsRefusedUnsubstituted) {
  SandboxSecrets secrets = test_secrets();
  for (const char* host : {"evil.test", "api.test:8443", "other.test", "api.test.evil.test"}) {
    BrokeredRequests brokered(secrets, "api.test", 443, false);
    Fed fed = feed(
        brokered,
        std::string("GET / HTTP/1.1\r\nHost: ") + host + "\r\nX-Key: " + kPlaceholder + "\r\n\r\n",
        5);
    ASSERT_TRUE(fed.refused) << host;
    EXPECT_TRUE(fed.refused->starts_with("HTTP/1.1 421")) << *fed.refused;
    EXPECT_TRUE(fed.upstream.empty());
    EXPECT_EQ(fed.refused->find(kValue), std::string::npos);
    auto uses = brokered.take_uses();
    ASSERT_EQ(uses.size(), 1u);
    EXPECT_FALSE(uses[0].substituted);
  }
}

TEST(BrokeredRequests, WhatCannotBeFramedIsRefusedNeverPassedOn) {
  SandboxSecrets secrets = test_secrets();
  std::string key = std::string("X-Key: ") + kPlaceholder + "\r\n";
  for (const std::string& bad : {
           "GET / HTTP/1.1\r\nHost: api.test\r\n" + key +
               "Transfer-Encoding: gzip, chunked\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: api.test\r\n" + key +
               "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: api.test\r\n" + key +
               "Content-Length: 1\r\nContent-Length: 1\r\n\r\n",
           "GET / HTTP/1.1\r\n" + key + "\r\n",
           "GET http://api.test/ HTTP/1.1\r\nHost: api.test\r\n" + key + "\r\n",
           "GET / HTTP/1.1\nHost: api.test\r\n" + key + "\r\n",
           "GET / HTTP/1.1\r\nHost: api.test\r\n" + std::string(20000, 'x'),
       }) {
    BrokeredRequests brokered(secrets, "api.test", 443, false);
    Fed fed = feed(brokered, bad, bad.size());
    ASSERT_TRUE(fed.refused) << bad.substr(0, 80);
    EXPECT_TRUE(fed.refused->starts_with("HTTP/1.1 400")) << *fed.refused;
    EXPECT_TRUE(fed.upstream.empty()) << fed.upstream;
  }
  // A chunked body that goes wrong midway: its head went, the rest does not.
  BrokeredRequests brokered(secrets, "api.test", 443, false);
  Fed fed = feed(brokered,
                 "POST / HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "3\r\nabcX\r\nGET / HTTP/1.1\r\nHost: api.test\r\n" +
                     key + "\r\n",
                 1000);
  ASSERT_TRUE(fed.refused);
  EXPECT_EQ(fed.upstream.find("abc"), std::string::npos);
  EXPECT_EQ(fed.upstream.find(kValue), std::string::npos);
}

TEST(BrokeredRequests, BodiesAreSubstitutedOnlyWhenAskedAndHeldWithinTheirBound) {
  SandboxSecrets secrets = test_secrets();
  std::string body = std::string("{\"key\": \"") + kPlaceholder + "\"}";
  std::string chunked_body = "5\r\n{\"k\":\r\n" + [&] {
    std::string rest = std::string(" \"") + kPlaceholder + "\"}";
    char size[16];
    std::snprintf(size, sizeof size, "%zx", rest.size());
    return std::string(size) + "\r\n" + rest + "\r\n";
  }() + "0\r\n\r\n";
  std::string sized =
      "POST / HTTP/1.1\r\nHost: api.test\r\nExpect: 100-continue\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  std::string chunked =
      "POST / HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_body;
  {
    BrokeredRequests plain(secrets, "api.test", 443, false);
    Fed fed = feed(plain, sized, 3);
    ASSERT_FALSE(fed.refused);
    EXPECT_NE(fed.upstream.find(kPlaceholder), std::string::npos);
    auto uses = plain.take_uses();
    ASSERT_EQ(uses.size(), 1u);
    EXPECT_NE(uses[0].reason.find("request body"), std::string::npos);
  }
  for (const std::string& request : {sized, chunked}) {
    for (std::size_t piece : {std::size_t{1}, std::size_t{11}, request.size()}) {
      BrokeredRequests in_body(secrets, "api.test", 443, true);
      Fed fed = feed(in_body, request, piece);
      ASSERT_FALSE(fed.refused) << *fed.refused;
      EXPECT_EQ(fed.upstream.find(kPlaceholder), std::string::npos);
      EXPECT_NE(fed.upstream.find(kValue), std::string::npos);
      EXPECT_EQ(fed.upstream.find("Transfer-Encoding"), std::string::npos);
      EXPECT_EQ(fed.upstream.find("Expect"), std::string::npos);
      std::string content = fed.upstream.substr(fed.upstream.find("\r\n\r\n") + 4);
      EXPECT_NE(fed.upstream.find("Content-Length: " + std::to_string(content.size())),
                std::string::npos)
          << fed.upstream;
      if (request == sized) {
        EXPECT_EQ(fed.client, "HTTP/1.1 100 Continue\r\n\r\n");
      }
    }
  }
  BrokeredRequests too_big(secrets, "api.test", 443, true);
  std::string huge = "POST / HTTP/1.1\r\nHost: api.test\r\nContent-Length: 2000000\r\n\r\n" +
                     std::string(2000000, 'x');
  Fed fed = feed(too_big, huge, 65536);
  ASSERT_TRUE(fed.refused);
  EXPECT_TRUE(fed.refused->starts_with("HTTP/1.1 413"));
  EXPECT_TRUE(fed.upstream.empty());
}

// A TLS end that is no TLS at all: bytes pass as they are, so the tunnel's own logic is tested.
class PlainEnd final : public TlsEnd {
 public:
  explicit PlainEnd(bool fails) : fails_(fails) {}
  void receive(std::string_view raw) override { in_ += raw; }
  std::size_t unprocessed() const override { return in_.size(); }
  bool read(std::string& plain, std::size_t room) override {
    if (fails_) return false;
    std::size_t take = std::min(room, in_.size());
    plain += in_.substr(0, take);
    in_.erase(0, take);
    return true;
  }
  bool write(std::string_view plain) override {
    out_ += plain;
    return true;
  }
  void take_outgoing(std::string& raw) override { raw += std::exchange(out_, {}); }
  bool established() const override { return !fails_; }
  bool peer_closed() const override { return false; }
  void close() override {}
  std::string error() const override { return "its certificate failed verification: test"; }

 private:
  bool fails_;
  std::string in_, out_;
};

TEST(InterceptedTunnel, AnUpstreamThatFailsVerificationGetsNothingAndTheSandboxA502) {
  SandboxSecrets secrets = test_secrets();
  InterceptedTunnel tunnel(secrets, "api.test", 443, false, std::make_unique<PlainEnd>(false),
                           std::make_unique<PlainEnd>(true));
  std::string from_client =
      std::string("GET / HTTP/1.1\r\nHost: api.test\r\nX-Key: ") + kPlaceholder + "\r\n\r\n";
  std::string to_client, from_upstream, to_upstream;
  auto fate = tunnel.pump({from_client, to_client, from_upstream, to_upstream, false, false});
  EXPECT_EQ(fate, InterceptedTunnel::Fate::kEnding);
  EXPECT_TRUE(to_upstream.empty());
  EXPECT_TRUE(to_client.starts_with("HTTP/1.1 502 Bad Gateway")) << to_client;
  EXPECT_NE(to_client.find("api.test:443 over TLS: its certificate failed verification"),
            std::string::npos);
  EXPECT_EQ(to_client.find(kValue), std::string::npos);
  ASSERT_TRUE(tunnel.upstream_failure());
  // The placeholder was read and would have been replaced: the note says it was not sent.
  auto uses = tunnel.take_uses();
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_FALSE(uses[0].substituted);
  EXPECT_NE(uses[0].reason.find("not sent on"), std::string::npos);
}

TEST(InterceptedTunnel, RequestsGoUpstreamSubstitutedAndAnswersComeBackAsTheyAre) {
  SandboxSecrets secrets = test_secrets();
  InterceptedTunnel tunnel(secrets, "api.test", 443, false, std::make_unique<PlainEnd>(false),
                           std::make_unique<PlainEnd>(false));
  std::string from_client =
      std::string("GET / HTTP/1.1\r\nHost: api.test\r\nX-Key: ") + kPlaceholder + "\r\n\r\n";
  std::string to_client, from_upstream = "HTTP/1.1 200 OK\r\n\r\n", to_upstream;
  auto fate = tunnel.pump({from_client, to_client, from_upstream, to_upstream, false, false});
  EXPECT_EQ(fate, InterceptedTunnel::Fate::kGoesOn);
  EXPECT_NE(to_upstream.find(kValue), std::string::npos);
  EXPECT_EQ(to_client, "HTTP/1.1 200 OK\r\n\r\n");
}

TEST(BrokeredRequests, SurviveMutatedInput) {
  SandboxSecrets secrets = test_secrets();
  std::string seed = std::string("POST /x HTTP/1.1\r\nHost: api.test\r\nX: ") + kPlaceholder +
                     "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  std::mt19937 random(42);
  for (int round = 0; round < 3000; ++round) {
    std::string input = seed;
    for (int edits = 1 + static_cast<int>(random() % 8); edits > 0; --edits) {
      std::size_t at = random() % input.size();
      switch (random() % 3) {
        case 0:
          input[at] = static_cast<char>(random());
          break;
        case 1:
          input.erase(at, 1 + random() % 4);
          break;
        default:
          input.insert(at, 1, static_cast<char>(random()));
      }
      if (input.empty()) input = "x";
    }
    for (bool in_body : {false, true}) {
      BrokeredRequests brokered(secrets, "api.test", 443, in_body);
      Fed fed = feed(brokered, input, 1 + random() % 16);
      (void)fed;
    }
  }
}

}  // namespace
}  // namespace paddock::net::egress::brokered_secrets_test

namespace paddock::cli::brokered_secrets_test {
namespace {

config::Environment fake(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end() || found->second.empty()) return std::nullopt;
    return found->second;
  };
}

core::Result<app::ServerOptions> resolve_mcp(std::vector<const char*> args,
                                             std::map<std::string, std::string> env) {
  args.insert(args.begin(), {"paddock", "mcp"});
  auto request = parse_command_line(static_cast<int>(args.size()), args.data());
  EXPECT_TRUE(request) << request.error().message;
  return resolve_server_options(std::get<McpRequest>(*request).flags, fake(std::move(env)));
}

TEST(SecretFlags, McpTakesFlagsAndTheSemicolonSeparatedVariable) {
  auto options =
      resolve_mcp({"--secret", "GH=GH_REAL@api.github.com", "--egress-ca-file", "/tmp/ca.pem",
                   "--secret-in-body"},
                  {{"GH_REAL", "ghp_value_123"},
                   {"OAI_REAL", "sk-value-456"},
                   {"PADDOCK_SECRETS", "OAI=OAI_REAL@api.openai.com,files.openai.com:8443"}});
  ASSERT_TRUE(options) << options.error().message;
  ASSERT_EQ(options->secrets.size(), 2u);
  EXPECT_EQ(options->secrets[0].spec.name, "OAI");
  EXPECT_EQ(options->secrets[0].value, "sk-value-456");
  EXPECT_EQ(options->secrets[0].spec.hosts.size(), 2u);
  EXPECT_EQ(options->secrets[1].spec.name, "GH");
  EXPECT_TRUE(options->secrets_in_body);
  EXPECT_EQ(options->egress_ca_file, "/tmp/ca.pem");
  // The hosts join the allowlist.
  EXPECT_EQ(
      options->allowed_hosts,
      (std::vector<std::string>{"api.openai.com", "files.openai.com:8443", "api.github.com"}));
}

TEST(SecretFlags, AnUnsetValueOrABadFormIsOneLineWithoutAnyValue) {
  auto unset = resolve_mcp({"--secret", "GH=GH_REAL@api.github.com"}, {});
  ASSERT_FALSE(unset);
  EXPECT_NE(unset.error().message.find("GH_REAL, which is unset or empty"), std::string::npos)
      << unset.error().message;
  auto twice = resolve_mcp({"--secret", "GH=A@x.test", "--secret", "GH=B@y.test"},
                           {{"A", "value-aaaa"}, {"B", "value-bbbb"}});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("brokered twice"), std::string::npos);
  EXPECT_EQ(twice.error().message.find("value-"), std::string::npos);
  auto bad = resolve_mcp({"--secret", "GH@x.test"}, {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("NAME=ENVVAR@host1,host2"), std::string::npos);
  auto networked =
      resolve_mcp({"--secret", "GH=A@x.test", "--network", "user"}, {{"A", "value-aaaa"}});
  ASSERT_FALSE(networked);
  EXPECT_NE(networked.error().message.find("--secret"), std::string::npos);
  for (const auto& error : {unset.error(), bad.error(), networked.error()}) {
    EXPECT_EQ(error.message.find('\n'), std::string::npos);
  }
}

TEST(SecretFlags, RunTakesSecretsAndAddsTheirHostsToItsAllowlist) {
  std::vector<const char*> args = {
      "paddock",          "run",       "--secret", "K=V@api.test", "--secret", "L=W@b.test:8443",
      "--egress-ca-file", "/x/ca.pem", "--",       "true"};
  auto request = parse_command_line(static_cast<int>(args.size()), args.data());
  ASSERT_TRUE(request) << request.error().message;
  const auto& run = std::get<RunRequest>(*request);
  ASSERT_EQ(run.secrets.size(), 2u);
  EXPECT_EQ(run.shape.allowed_hosts, (std::vector<std::string>{"api.test", "b.test:8443"}));
  EXPECT_EQ(run.egress_ca_file, "/x/ca.pem");
  std::vector<const char*> networked = {"paddock",   "run",  "--secret", "K=V@api.test",
                                        "--network", "host", "--",       "true"};
  EXPECT_FALSE(parse_command_line(static_cast<int>(networked.size()), networked.data()));
}

}  // namespace
}  // namespace paddock::cli::brokered_secrets_test
