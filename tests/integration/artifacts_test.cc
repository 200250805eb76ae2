// Files a run leaves behind come back as artifacts, and the sandbox cannot use that to reach
// anything of the host or to stall paddock.

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::testing::artifacts_test {
namespace {

std::vector<std::string> names(const runtime::RunResult& result) {
  std::vector<std::string> found;
  for (const auto& artifact : result.artifacts) found.push_back(artifact.path);
  return found;
}

TEST(Artifacts, FilesUnderCollectedDirectoriesComeBack) {
  TestSpec spec = shell_spec(
      "mkdir -p outputs/sub; echo hello > outputs/a.txt; printf 'x,y\\n' > outputs/sub/b.csv; "
      "echo not collected > elsewhere.txt");
  spec.collect.directories = {"outputs"};
  runtime::RunResult result = run_ok(spec);
  ASSERT_EQ(names(result), (std::vector<std::string>{"outputs/a.txt", "outputs/sub/b.csv"}));
  EXPECT_EQ(result.artifacts[0].data, "hello\n");
  EXPECT_EQ(result.artifacts[0].mime_type, "text/plain");
  EXPECT_EQ(result.artifacts[1].mime_type, "text/csv");
  EXPECT_FALSE(result.artifacts_truncated());
}

TEST(Artifacts, AnUnknownExtensionIsLabelledByContent) {
  TestSpec spec = shell_spec(
      // Written in name order, so the listing's order is the same whether or not the clock
      // ticked between the two writes (files come in the order they were made).
      "mkdir outputs; printf 'a\\000b' > outputs/blob.dat; echo 'mean 3.5' > outputs/summary.dat");
  spec.collect.directories = {"outputs"};
  runtime::RunResult result = run_ok(spec);
  ASSERT_EQ(names(result), (std::vector<std::string>{"outputs/blob.dat", "outputs/summary.dat"}));
  EXPECT_EQ(result.artifacts[0].mime_type, "application/octet-stream");
  EXPECT_EQ(result.artifacts[1].mime_type, "text/plain");
}

TEST(Artifacts, LinksFifosAndDevicesAreNotFollowed) {
  // A symlink or hard link to host files, a FIFO that would block a reader, /dev nodes.
  TestSpec spec = shell_spec(
      "mkdir outputs; ln -s /etc/passwd outputs/passwd; ln -s / outputs/root; "
      "mkfifo outputs/fifo; ln -s /dev/zero outputs/zero; echo ok > outputs/real.txt");
  spec.collect.directories = {"outputs"};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(names(result), (std::vector<std::string>{"outputs/real.txt"}));
  TestSpec escape = shell_spec("ln -s / outputs");
  escape.collect.directories = {"outputs"};
  EXPECT_TRUE(run_ok(escape).artifacts.empty());
}

TEST(Artifacts, CapsOnCountAndBytesAreKept) {
  TestSpec spec = shell_spec(
      "mkdir outputs; for i in 1 2 3 4 5; do echo $i > outputs/f$i.txt; done; "
      "head -c 5000 /dev/zero > outputs/z-big.bin");
  spec.collect = {{"outputs"}, 3, 1000};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.artifacts.size(), 3u);
  EXPECT_TRUE(result.artifacts_truncated());
  spec.collect = {{"outputs"}, 32, 1000};
  runtime::RunResult by_size = run_ok(spec);
  EXPECT_EQ(by_size.artifacts.size(), 5u);  // the 5000-byte file does not fit
  EXPECT_TRUE(by_size.artifacts_truncated());
}

TEST(Artifacts, FilesComeInTheOrderTheyWereMadeAndTheOmittedAreNamed) {
  // Made out of name order: c first, then a, then b; and figure-1 to figure-12, whose names
  // sort figure-10 before figure-2.
  TestSpec spec = shell_spec(
      "mkdir -p outputs plots; echo 1 > outputs/c.txt; sleep 0.05; echo 2 > outputs/a.txt; "
      "sleep 0.05; echo 3 > outputs/b.txt; "
      "for i in $(seq 1 12); do echo $i > plots/figure-$i.png; done");
  spec.collect = {{"plots", "outputs"}, 13, 1u << 20};
  runtime::RunResult result = run_ok(spec);
  std::vector<std::string> expected;
  for (int i = 1; i <= 12; ++i) expected.push_back("plots/figure-" + std::to_string(i) + ".png");
  expected.push_back("outputs/c.txt");
  EXPECT_EQ(names(result), expected);
  ASSERT_EQ(result.artifacts_omitted.size(), 2u);
  EXPECT_EQ(result.artifacts_omitted[0].path, "outputs/a.txt");
  EXPECT_EQ(result.artifacts_omitted[1].path, "outputs/b.txt");
  EXPECT_TRUE(result.artifacts_truncated());
}

TEST(Artifacts, AProgramThatMakesTensOfThousandsOfFilesCannotStallTheListing) {
  TestSpec spec = shell_spec("mkdir outputs && cd outputs && seq 1 30000 | xargs touch");
  spec.collect = {{"outputs"}, 20, 1u << 20};
  spec.limits.wall_seconds = 60;
  runtime::RunResult result = run_ok(spec);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_EQ(result.artifacts.size(), 20u);
  ASSERT_FALSE(result.artifacts_omitted.empty());
  // Listed up to 10000 files and said so: the rest were never read into memory. Of those left
  // out, the result keeps the first 200 and the note, and counts the others.
  EXPECT_EQ(result.artifacts_omitted.size(), runtime::kMaxOmittedListed + 1u);
  EXPECT_EQ(result.artifacts_omitted_count(), 10000u - 20u + 1u);
  EXPECT_NE(result.artifacts_omitted.back().reason.find("more than 10000 files"),
            std::string::npos);
}

TEST(Artifacts, WhatWasWrittenBeforeATimeoutStillComesBack) {
  TestSpec spec = shell_spec("mkdir outputs; echo partial > outputs/log.txt; sleep 30");
  spec.collect.directories = {"outputs"};
  spec.limits.wall_seconds = 1;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kTimedOut);
  ASSERT_EQ(result.artifacts.size(), 1u);
  EXPECT_EQ(result.artifacts[0].data, "partial\n");
}

TEST(Artifacts, NothingIsCollectedUnlessAsked) {
  runtime::RunResult result = run_ok(shell_spec("mkdir outputs; echo x > outputs/a.txt"));
  EXPECT_TRUE(result.artifacts.empty());
}

}  // namespace
}  // namespace paddock::testing::artifacts_test
