// Image documents (indexes, manifests, configs) come from a registry or an archive, which may be
// hostile: a field of the wrong type is an error naming it, never an exception out of the
// parser (nlohmann's value() and get() throw on a type mismatch). The inputs are the shapes
// tests/fuzz/image_manifest_fuzz.cc reaches; each used to throw.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rootfs/image_install.h"
#include "rootfs/image_pull.h"
#include "rootfs/image_store.h"
#include "support/temp_folder.h"

namespace paddock::rootfs::image_documents_test {
namespace {

using nlohmann::json;

const std::string kDigest = "sha256:" + std::string(64, 'a');

TEST(ImageDocuments, ADescriptorWhoseDigestIsNoStringIsRefused) {
  core::Result<Layer> layer = core::Error{0, ""};
  ASSERT_NO_THROW(layer = parse_descriptor(json{{"digest", 5}, {"size", 1}}, "layer"));
  ASSERT_FALSE(layer);
  EXPECT_NE(layer.error().message.find("is not sha256"), std::string::npos);
}

TEST(ImageDocuments, AnIndexEntryOfTheWrongShapeIsPassedOver) {
  json index = json::parse(R"({"manifests": [
    {"digest": 7, "platform": {"os": "linux", "architecture": "amd64"}},
    {"digest": "sha256:b", "platform": "linux/amd64"},
    {"digest": "sha256:c", "platform": {"os": 1, "architecture": ["amd64"]}},
    {"digest": "sha256:d", "platform": {"os": "linux", "architecture": "amd64", "variant": 2}},
    {"digest": "sha256:e", "platform": {"os": "linux", "architecture": "amd64"}}]})");
  core::Result<std::string> chosen = core::Error{0, ""};
  ASSERT_NO_THROW(chosen = select_manifest(index, "linux/amd64"));
  // "d" offers linux/amd64 with a variant that is no string, which no variant asked for matches.
  ASSERT_TRUE(chosen) << chosen.error().message;
  EXPECT_EQ(*chosen, "sha256:d");
  core::Result<std::string> arm = core::Error{0, ""};
  ASSERT_NO_THROW(arm = select_manifest(index, "linux/arm64/v8"));
  EXPECT_FALSE(arm);
}

TEST(ImageDocuments, AManifestOrConfigOfTheWrongShapeIsAnErrorNamingIt) {
  struct Case {
    json manifest;
    json config;
    std::string said;
  };
  const json good_config = {{"rootfs", {{"type", "layers"}, {"diff_ids", json::array()}}}};
  std::vector<Case> cases = {
      {{{"config", "sha256:x"}, {"layers", json::array()}},
       good_config,
       "is not an OCI or Docker schema 2 image manifest"},
      {{{"config", {{"digest", 5}}}, {"layers", json::array()}},
       good_config,
       "\"digest\" is not a string"},
      {{{"config", {{"digest", kDigest}}}, {"layers", json::array()}},
       {{"rootfs", json::array()}},
       "\"rootfs\" is not an object"},
      {{{"config", {{"digest", kDigest}}}, {"layers", json::array()}},
       {{"rootfs", {{"diff_ids", "sha256:y"}}}},
       "rootfs.diff_ids is not an array"},
      {{{"config", {{"digest", kDigest}}}, {"layers", json::array({"sha256:z"})}},
       {{"rootfs", {{"diff_ids", json::array({kDigest})}}}},
       "layer is not an object"},
      {{{"config", {{"digest", kDigest}}},
        {"layers", json::array({{{"digest", kDigest}, {"size", "12"}}})}},
       {{"rootfs", {{"diff_ids", json::array({kDigest})}}}},
       "\"size\" is not a size in bytes"},
      {{{"config", {{"digest", kDigest}}},
        {"layers", json::array({{{"digest", kDigest}, {"mediaType", 3}}})}},
       {{"rootfs", {{"diff_ids", json::array({kDigest})}}}},
       "\"mediaType\" is not a string"},
  };
  for (const auto& one : cases) {
    testing::TempFolder folder("image-documents");
    auto store = ImageStore::open(folder.path());
    ASSERT_TRUE(store) << store.error().message;
    auto config = store->put_blob(one.config.dump());
    ASSERT_TRUE(config);
    json manifest = one.manifest;
    // The config named by the manifest is the one stored, where the case names a string digest.
    if (manifest["config"].is_object() && manifest["config"].value("digest", json()) == kDigest) {
      manifest["config"]["digest"] = *config;
    }
    auto stored = store->put_blob(manifest.dump());
    ASSERT_TRUE(stored);
    core::Result<ImageRecord> installed = core::Error{0, ""};
    ASSERT_NO_THROW(installed = install_image(*store, "example/image:1", *stored))
        << manifest.dump();
    ASSERT_FALSE(installed) << manifest.dump();
    EXPECT_NE(installed.error().message.find(one.said), std::string::npos)
        << installed.error().message;
  }
}

TEST(ImageDocuments, ARunConfigOfTheWrongShapeIsAnErrorNamingIt) {
  testing::TempFolder folder("image-documents");
  auto store = ImageStore::open(folder.path());
  ASSERT_TRUE(store) << store.error().message;
  std::vector<std::pair<json, std::string>> cases = {
      {{{"config", json::array()}}, "\"config\" is not an object"},
      {{{"config", {{"WorkingDir", 5}}}}, "WorkingDir is not a string"},
      {{{"config", {{"User", json::object()}}}}, "User is not a string"},
  };
  for (const auto& [config, said] : cases) {
    auto digest = store->put_blob(config.dump());
    ASSERT_TRUE(digest);
    ImageRecord record;
    record.reference = "example/image:1";
    record.config_digest = *digest;
    core::Result<ImageRunConfig> run = core::Error{0, ""};
    ASSERT_NO_THROW(run = image_run_config(*store, record)) << config.dump();
    ASSERT_FALSE(run) << config.dump();
    EXPECT_NE(run.error().message.find(said), std::string::npos) << run.error().message;
  }
  // A config without its "config" (null, as some builders write it) runs with the defaults.
  auto bare = store->put_blob(json{{"config", nullptr}}.dump());
  ASSERT_TRUE(bare);
  ImageRecord record;
  record.config_digest = *bare;
  auto run = image_run_config(*store, record);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->cmd.empty());
}

}  // namespace
}  // namespace paddock::rootfs::image_documents_test
