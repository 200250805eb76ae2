// Artifacts from a container's tar: the names come from inside the container, so only plain
// relative paths inside a collected directory are reported, each under its normal form.

#include "runtime/container/tar_reader.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "support/layer_builder.h"

namespace paddock::testing::tar_reader_test {
namespace {

runtime::OutputCollection outputs() {
  runtime::OutputCollection collection;
  collection.directories = {"outputs"};
  return collection;
}

std::vector<std::string> names(const std::vector<runtime::Artifact>& artifacts) {
  std::vector<std::string> found;
  for (const auto& artifact : artifacts) found.push_back(artifact.path);
  return found;
}

TEST(TarReader, HostileNamesAreDroppedAndTheRestNormalised) {
  std::string tar = LayerBuilder()
                        .file("../x", "up")
                        .file("/etc/x", "absolute")
                        .file("outputs/../../x", "up through outputs")
                        .file("outputs/../secret", "beside outputs")
                        .file("other/y", "not collected")
                        .file("./outputs//a/./b.txt", "odd but inside")
                        .file("outputs/ok.csv", "fine")
                        .tar();
  container::TarArtifacts found = container::artifacts_from_tar(tar, outputs());
  const std::vector<runtime::Artifact>& artifacts = found.artifacts;
  EXPECT_EQ(names(artifacts), (std::vector<std::string>{"outputs/a/b.txt", "outputs/ok.csv"}));
  EXPECT_TRUE(found.omitted.empty());
  ASSERT_EQ(artifacts.size(), 2u);
  EXPECT_EQ(artifacts[0].data, "odd but inside");
  EXPECT_EQ(artifacts[1].mime_type, "text/csv");
}

TEST(TarReader, FilesComeInTheOrderTheyWereMadeAndWhatDoesNotFitIsNamed) {
  LayerBuilder layer;
  for (int i = 12; i >= 1; --i) layer.file("outputs/figure-" + std::to_string(i) + ".png", "png");
  runtime::OutputCollection collection = outputs();
  collection.max_files = 10;
  container::TarArtifacts found = container::artifacts_from_tar(layer.tar(), collection);
  std::vector<std::string> expected;
  for (int i = 1; i <= 10; ++i) expected.push_back("outputs/figure-" + std::to_string(i) + ".png");
  EXPECT_EQ(names(found.artifacts), expected);
  ASSERT_EQ(found.omitted.size(), 2u);
  EXPECT_EQ(found.omitted[0].path, "outputs/figure-11.png");
  EXPECT_EQ(found.omitted[1].path, "outputs/figure-12.png");
  EXPECT_NE(found.omitted[0].reason.find("10 files"), std::string::npos);
}

TEST(TarReader, ArtifactsAreLabelledByExtensionThenByContent) {
  std::string tar = LayerBuilder()
                        .file("outputs/summary.dat", "mean 3.5\n")
                        .file("outputs/model.bin", std::string("\x00\x01\xff", 3))
                        .file("outputs/main.py", "print(1)\n")
                        .tar();
  std::vector<runtime::Artifact> artifacts =
      container::artifacts_from_tar(tar, outputs()).artifacts;
  ASSERT_EQ(artifacts.size(), 3u);
  std::map<std::string, std::string> types;
  for (const auto& artifact : artifacts) types[artifact.path] = artifact.mime_type;
  EXPECT_EQ(types["outputs/summary.dat"], "text/plain") << "an unknown extension, text content";
  EXPECT_EQ(types["outputs/model.bin"], "application/octet-stream");
  EXPECT_EQ(types["outputs/main.py"], "text/x-python");
}

TEST(TarReader, ArtifactName) {
  const runtime::OutputCollection collection = outputs();
  EXPECT_EQ(container::artifact_name("./outputs/plot.png", collection), "outputs/plot.png");
  EXPECT_EQ(container::artifact_name("outputs/a/../b", collection), "outputs/b");
  for (const char* bad : {"../x", "/etc/x", "/outputs/x", "outputs/../../x", "outputs", "outputs/",
                          "outputs/..", "outputsx/y", ""}) {
    EXPECT_EQ(container::artifact_name(bad, collection), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace paddock::testing::tar_reader_test
