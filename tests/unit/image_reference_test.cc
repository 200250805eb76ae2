// Image references normalised as Docker does, and refused with a message when malformed.

#include "rootfs/image_reference.h"

#include <gtest/gtest.h>

namespace paddock::rootfs::image_reference_test {
namespace {

std::string canonical(const std::string& text) {
  auto parsed = parse_image_reference(text);
  return parsed ? parsed->canonical() : "error: " + parsed.error().message;
}

TEST(ImageReference, NormalisedAsDockerDoes) {
  EXPECT_EQ(canonical("python"), "docker.io/library/python:latest");
  EXPECT_EQ(canonical("python:3.12-slim"), "docker.io/library/python:3.12-slim");
  EXPECT_EQ(canonical("org/img"), "docker.io/org/img:latest");
  EXPECT_EQ(canonical("index.docker.io/library/python:3"), "docker.io/library/python:3");
  EXPECT_EQ(canonical("ghcr.io/org/img:tag"), "ghcr.io/org/img:tag");
  EXPECT_EQ(canonical("localhost:5000/x"), "localhost:5000/x:latest");
  EXPECT_EQ(canonical("localhost/x:1"), "localhost/x:1");
  EXPECT_EQ(canonical("registry.example.com:443/a/b/c:v1.2"),
            "registry.example.com:443/a/b/c:v1.2");
  std::string digest = "sha256:" + std::string(64, 'a');
  EXPECT_EQ(canonical("docker.io/library/python@" + digest), "docker.io/library/python@" + digest);
  EXPECT_EQ(canonical("python:3@" + digest), "docker.io/library/python:3@" + digest);
}

TEST(ImageReference, RegistryHostAndLoopback) {
  auto hub = parse_image_reference("python");
  ASSERT_TRUE(hub);
  EXPECT_EQ(hub->api_host(), "registry-1.docker.io");
  EXPECT_FALSE(hub->is_loopback());
  for (const char* loopback : {"localhost:5000/x", "127.0.0.1:5000/x", "127.1.2.3/x"}) {
    auto parsed = parse_image_reference(loopback);
    ASSERT_TRUE(parsed) << loopback;
    EXPECT_TRUE(parsed->is_loopback()) << loopback;
  }
  // A name that only looks like a loopback address is a name anyone can register.
  for (const char* not_loopback : {"127.evil.example/x", "127.0.0.1.evil.example:5000/x",
                                   "localhost.evil.example/x", "128.0.0.1:5000/x"}) {
    auto parsed = parse_image_reference(not_loopback);
    ASSERT_TRUE(parsed) << not_loopback;
    EXPECT_FALSE(parsed->is_loopback()) << not_loopback;
  }
  auto other = parse_image_reference("example.com:5000/x");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->is_loopback());
  EXPECT_EQ(other->api_host(), "example.com:5000");
}

TEST(ImageReference, MalformedReferencesAreRefusedWithAnExample) {
  for (const char* bad : {"", "UPPER", "a b", "python:", "python:-x", "python@sha256:abc",
                          "python@md5:"
                          "0123",
                          "/python", "python//x", "x:tag:more"}) {
    auto parsed = parse_image_reference(bad);
    EXPECT_FALSE(parsed) << bad << " -> " << (parsed ? parsed->canonical() : "");
    if (!parsed) {
      EXPECT_NE(parsed.error().message.find("e.g. python:3.12-slim"), std::string::npos);
    }
  }
  EXPECT_FALSE(parse_image_reference(std::string(600, 'a')));
}

TEST(ImageReference, Sha256Digests) {
  EXPECT_TRUE(is_sha256_digest("sha256:" + std::string(64, '0')));
  EXPECT_FALSE(is_sha256_digest("sha256:" + std::string(63, '0')));
  EXPECT_FALSE(is_sha256_digest("sha256:" + std::string(64, 'A')));
  EXPECT_FALSE(is_sha256_digest("sha512:" + std::string(64, '0')));
  EXPECT_EQ(digest_hex("sha256:abc"), "abc");
}

}  // namespace
}  // namespace paddock::rootfs::image_reference_test
