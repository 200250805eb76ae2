// Artifacts come back in the order they were made, and the caps name what they leave out.

#include "runtime/artifact_choice.h"

#include <gtest/gtest.h>

namespace paddock::artifact_choice_test {
namespace {

std::vector<std::string> paths(const std::vector<runtime::ArtifactCandidate>& taken) {
  std::vector<std::string> found;
  for (const auto& candidate : taken) found.push_back(candidate.path);
  return found;
}

TEST(ArtifactChoice, NaturalOrderComparesNumbersByValue) {
  EXPECT_TRUE(runtime::natural_less("figure-2.png", "figure-10.png"));
  EXPECT_FALSE(runtime::natural_less("figure-10.png", "figure-2.png"));
  EXPECT_TRUE(runtime::natural_less("a", "b"));
  EXPECT_TRUE(runtime::natural_less("figure-9", "figure-9.png"));
  EXPECT_TRUE(runtime::natural_less("x99999999999999999999999", "x100000000000000000000000"));
  EXPECT_NE(runtime::natural_less("f01", "f1"),
            runtime::natural_less("f1", "f01"));  // still a strict order
  EXPECT_FALSE(runtime::natural_less("same", "same"));
}

TEST(ArtifactChoice, ByDirectoryThenTimeThenName) {
  std::vector<runtime::ArtifactCandidate> candidates = {
      {"outputs/early.csv", 1, 100, 1}, {"plots/figure-10.png", 0, 5, 1},
      {"plots/figure-2.png", 0, 5, 1},  {"plots/figure-1.png", 0, 5, 1},
      {"outputs/late.csv", 1, 200, 1},  {"plots/later.png", 0, 9, 1},
  };
  runtime::OutputCollection collection{{"plots", "outputs"}, 100, 100};
  runtime::ArtifactChoice choice = runtime::choose_artifacts(candidates, collection);
  EXPECT_EQ(
      paths(choice.taken),
      (std::vector<std::string>{"plots/figure-1.png", "plots/figure-2.png", "plots/figure-10.png",
                                "plots/later.png", "outputs/early.csv", "outputs/late.csv"}));
  EXPECT_TRUE(choice.omitted.empty());
}

TEST(ArtifactChoice, TheCapsNameWhatTheyLeaveOut) {
  std::vector<runtime::ArtifactCandidate> candidates;
  for (int i = 1; i <= 60; ++i) {
    candidates.push_back({"p/figure-" + std::to_string(i) + ".png", 0, 0, 10});
  }
  runtime::ArtifactChoice by_count = runtime::choose_artifacts(candidates, {{"p"}, 20, 1000});
  ASSERT_EQ(by_count.taken.size(), 20u);
  EXPECT_EQ(by_count.taken.back().path, "p/figure-20.png");
  ASSERT_EQ(by_count.omitted.size(), 40u);
  EXPECT_EQ(by_count.omitted.front().path, "p/figure-21.png");
  EXPECT_EQ(by_count.omitted.front().reason, "over the limit of 20 files per call");
  // A big one is left out by bytes, and smaller ones after it still come.
  candidates = {{"p/a", 0, 1, 60}, {"p/big", 0, 2, 50}, {"p/c", 0, 3, 40}};
  runtime::ArtifactChoice by_bytes = runtime::choose_artifacts(candidates, {{"p"}, 20, 100});
  EXPECT_EQ(paths(by_bytes.taken), (std::vector<std::string>{"p/a", "p/c"}));
  ASSERT_EQ(by_bytes.omitted.size(), 1u);
  EXPECT_EQ(by_bytes.omitted[0].path, "p/big");
  EXPECT_EQ(by_bytes.omitted[0].reason, "over the limit of 100 bytes per call");
}

}  // namespace
}  // namespace paddock::artifact_choice_test
