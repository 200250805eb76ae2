// The registry client against a registry that fails now and then (tests/support's fault server,
// on loopback, so plain HTTP): answers worth another try are retried with backoff, the others are
// one clear line, authentication is asked for once, and a retried blob starts again.

#include "rootfs/registry_client.h"

#include <gtest/gtest.h>

#include "rootfs/registry_auth.h"
#include "support/fault_http_server.h"

namespace paddock::rootfs::registry_retry_test {
namespace {

using testing::FaultAnswer;
using testing::FaultHttpServer;

constexpr const char* kManifestPath = "/v2/test/image/manifests/latest";

FaultAnswer manifest_answer() {
  FaultAnswer answer;
  answer.headers = {"Content-Type: application/vnd.oci.image.manifest.v1+json",
                    "Docker-Content-Digest: sha256:feed"};
  answer.body = R"({"schemaVersion": 2})";
  return answer;
}

FaultAnswer status(int code, std::vector<std::string> headers = {}) {
  FaultAnswer answer;
  answer.status = code;
  answer.headers = std::move(headers);
  answer.body = R"({"errors": [{"code": "X", "message": "scripted"}]})";
  return answer;
}

class RegistryRetries : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = FaultHttpServer::start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    server_ = std::move(*started);
    auto reference =
        parse_image_reference("127.0.0.1:" + std::to_string(server_->port()) + "/test/image");
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    auto client = RegistryClient::create(*reference, RegistryOptions{});
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_.emplace(std::move(*client));
  }

  std::unique_ptr<FaultHttpServer> server_;
  std::optional<RegistryClient> client_;
};

TEST_F(RegistryRetries, ServerErrorsAreTriedAgainUntilTheRegistryAnswers) {
  server_->script("GET", kManifestPath, {status(503), status(502), manifest_answer()});
  auto manifest = client_->get_manifest("latest");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->digest, "sha256:feed");
  EXPECT_EQ(manifest->media_type, "application/vnd.oci.image.manifest.v1+json");
  EXPECT_EQ(server_->count("GET", kManifestPath), 3);
}

TEST_F(RegistryRetries, TooManyRequestsIsTriedThreeTimesThenNamed) {
  server_->script("GET", kManifestPath, {status(429)});
  auto manifest = client_->get_manifest("latest");
  ASSERT_FALSE(manifest.ok());
  EXPECT_NE(manifest.error().message.find("429 Too Many Requests"), std::string::npos)
      << manifest.error().message;
  EXPECT_EQ(server_->count("GET", kManifestPath), kAttempts);
}

TEST_F(RegistryRetries, NotFoundIsFinalAtOnce) {
  server_->script("GET", kManifestPath, {status(404)});
  auto manifest = client_->get_manifest("latest");
  ASSERT_FALSE(manifest.ok());
  EXPECT_EQ(manifest.error().code, ENOENT);
  EXPECT_NE(manifest.error().message.find("tag 'latest' not found"), std::string::npos)
      << manifest.error().message;
  EXPECT_EQ(server_->count("GET", kManifestPath), 1);
}

TEST_F(RegistryRetries, ABearerChallengeFetchesATokenOnceAndRetriesTheTokenService) {
  std::string challenge = "WWW-Authenticate: Bearer realm=\"" + server_->url("/token") +
                          "\",service=\"test\",scope=\"repository:test/image:pull\"";
  server_->script("GET", kManifestPath, {status(401, {challenge}), manifest_answer()});
  FaultAnswer token;
  token.body = R"({"token": "abc123"})";
  server_->script("GET", "/token", {status(503), token});
  auto manifest = client_->get_manifest("latest");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(server_->count("GET", "/token"), 2);
  auto requests = server_->requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests.back().header("authorization"), "Bearer abc123");
  bool scoped = false;
  for (const auto& request : requests) {
    if (request.path == "/token") scoped = request.target.find("service=test") != std::string::npos;
  }
  EXPECT_TRUE(scoped);
}

TEST_F(RegistryRetries, ARetriedBlobStartsAgainAndOnlyTheGoodAnswerReachesTheSink) {
  const std::string blob_path = "/v2/test/image/blobs/sha256:abc";
  FaultAnswer good;
  good.body = "layer bytes";
  server_->script("GET", blob_path, {status(500), good});
  int restarts = 0;
  std::string received;
  auto fetched = client_->fetch_blob(
      "sha256:abc",
      [&] {
        ++restarts;
        received.clear();
        return core::Status{};
      },
      [&](std::string_view chunk) {
        received.append(chunk);
        return core::Status{};
      });
  ASSERT_TRUE(fetched.ok()) << fetched.error().message;
  EXPECT_EQ(restarts, 2);
  EXPECT_EQ(received, "layer bytes");
}

}  // namespace
}  // namespace paddock::rootfs::registry_retry_test
