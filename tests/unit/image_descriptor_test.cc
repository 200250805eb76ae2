// A manifest's descriptors bound what a pull downloads: a descriptor without a size would let a
// registry stream a blob forever, so it is refused, as is a digest that is not sha256.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rootfs/image_pull.h"

namespace paddock::rootfs::image_descriptor_test {
namespace {

const std::string kDigest = "sha256:" + std::string(64, 'a');

TEST(ImageDescriptor, TakesTheDigestAndTheSize) {
  auto layer = parse_descriptor({{"digest", kDigest}, {"size", 1234}}, "layer");
  ASSERT_TRUE(layer) << (layer ? "" : layer.error().message);
  EXPECT_EQ(layer->digest, kDigest);
  EXPECT_EQ(layer->size, 1234u);
  auto empty = parse_descriptor({{"digest", kDigest}, {"size", 0}}, "config");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->size, 0u);  // an empty blob is bounded too: at zero bytes
}

TEST(ImageDescriptor, ADescriptorWithoutASizeIsRefused) {
  for (const nlohmann::json& descriptor :
       {nlohmann::json{{"digest", kDigest}}, nlohmann::json{{"digest", kDigest}, {"size", -1}},
        nlohmann::json{{"digest", kDigest}, {"size", "12"}},
        nlohmann::json{{"digest", kDigest}, {"size", nullptr}}}) {
    auto layer = parse_descriptor(descriptor, "layer");
    ASSERT_FALSE(layer) << descriptor.dump();
    EXPECT_NE(layer.error().message.find("has no size"), std::string::npos)
        << layer.error().message;
  }
}

TEST(ImageDescriptor, ADigestThatIsNotSha256IsRefused) {
  for (const nlohmann::json& descriptor : {nlohmann::json{{"digest", "md5:abc"}, {"size", 1}},
                                           nlohmann::json{{"size", 1}}, nlohmann::json::array()}) {
    EXPECT_FALSE(parse_descriptor(descriptor, "layer")) << descriptor.dump();
  }
}

}  // namespace
}  // namespace paddock::rootfs::image_descriptor_test
