#include "core/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace paddock::base64_test {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> kVectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : kVectors) {
    EXPECT_EQ(core::base64_encode(plain), encoded) << plain;
    EXPECT_EQ(core::base64_decode(encoded), std::optional<std::string>(plain)) << encoded;
  }
}

TEST(Base64, UsesTheStandardAlphabet) {
  EXPECT_EQ(core::base64_encode("\xfb\xff\xbf"), "+/+/");
  EXPECT_EQ(core::base64_encode(std::string("\0\0\0", 3)), "AAAA");
  EXPECT_EQ(core::base64_decode("+/+/"), std::optional<std::string>("\xfb\xff\xbf"));
  EXPECT_EQ(core::base64_decode("-_-_"), std::nullopt) << "the URL-safe alphabet is not base64";
}

TEST(Base64, RoundTripsEveryByteAtEveryShortLength) {
  for (std::size_t length = 0; length <= 10; ++length) {
    for (int start = 0; start < 256; ++start) {
      std::string bytes;
      for (std::size_t i = 0; i < length; ++i) {
        bytes += static_cast<char>((start + static_cast<int>(i) * 97) & 0xff);
      }
      std::string encoded = core::base64_encode(bytes);
      EXPECT_EQ(encoded.size(), (length + 2) / 3 * 4);
      auto decoded = core::base64_decode(encoded);
      ASSERT_TRUE(decoded.has_value()) << encoded;
      EXPECT_EQ(*decoded, bytes) << "length " << length << " start " << start;
    }
  }
}

TEST(Base64, RoundTripsAllByteValues) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(core::base64_decode(core::base64_encode(all)), std::optional<std::string>(all));
}

TEST(Base64, BadLengthIsRejected) {
  for (const char* bad : {"Z", "Zg", "Zg=", "Zm9vY", "Zm9vYmFy="}) {
    EXPECT_EQ(core::base64_decode(bad), std::nullopt) << bad;
  }
}

TEST(Base64, BadCharactersAreRejected) {
  for (const char* bad : {"Zm9v!A==", "Zm 9", "Zm9v\n", "Zm9\x80", "Zm9v\r\nYmFy", "Zm.v"}) {
    EXPECT_EQ(core::base64_decode(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(core::base64_decode(std::string("Zm9\0", 4)), std::nullopt);
}

TEST(Base64, DataAfterPaddingIsRejected) {
  for (const char* bad : {"Zg=v", "Zg==Zm9v", "Zm8=Zm8=", "====", "Z===", "=Zg=", "Zm9v=A=="}) {
    EXPECT_EQ(core::base64_decode(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace paddock::base64_test
