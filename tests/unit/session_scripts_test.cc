// The engine sessions' file scripts, run by the shells images have (dash, busybox sh) against a
// work directory where code has planted symlinks: a write never goes through one; a read takes
// the byte range asked for.

#include "runtime/container/session_scripts.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/helper_process.h"

namespace paddock::testing::session_scripts_test {
namespace {

namespace fs = std::filesystem;

class WriteScript : public ::testing::TestWithParam<std::vector<std::string>> {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/paddock-session-scripts.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    work_ = root_ / "work";
    outside_ = root_ / "outside";
    fs::create_directories(work_);
    fs::create_directories(outside_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes "planted" (base64 cGxhbnRlZA==) to `path` with the script, as the engine does: the
  // exec runs in the work directory (the container's WorkingDir), where a glob would match.
  int write(const std::string& path) {
    std::vector<std::string> args = GetParam();
    const std::string script = std::string("cd \"$1\" || exit 99; ") + container::kWriteScript;
    for (const std::string& arg : {std::string("-c"), script, std::string("sh")}) {
      args.push_back(arg);
    }
    for (const std::string& arg :
         {work_.string(), path, std::string("new"), std::string("cGxh"), std::string("bnRlZA==")}) {
      args.push_back(arg);
    }
    return run_tool(args).status;
  }

  fs::path root_, work_, outside_;
};

TEST_P(WriteScript, WritesThroughPlainDirectories) {
  EXPECT_EQ(write("a/b/c.txt"), 0);
  std::ifstream in(work_ / "a/b/c.txt");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "planted");
}

// A directory name that is a glob matching a real directory: checked must be what is written.
TEST_P(WriteScript, GlobInADirectoryNameIsNotExpanded) {
  fs::create_directory(work_ / "ab");
  fs::create_directory_symlink(outside_, work_ / "[a]b");
  EXPECT_EQ(container::refusal_errno(write("[a]b/x")), ELOOP);
  EXPECT_FALSE(fs::exists(outside_ / "x")) << "written through the symlink [a]b";
  EXPECT_FALSE(fs::exists(work_ / "ab/x"));
}

// Deeper, the glob matches in the work directory (the exec's cwd), not where it stands.
TEST_P(WriteScript, GlobDeeperInThePathIsNotExpanded) {
  fs::create_directories(work_ / "in");
  fs::create_directories(work_ / "ab");
  fs::create_directory_symlink(outside_, work_ / "in/[a]b");
  EXPECT_EQ(container::refusal_errno(write("in/[a]b/x")), ELOOP);
  EXPECT_FALSE(fs::exists(outside_ / "x")) << "written through the symlink in/[a]b";
}

TEST_P(WriteScript, SymlinkOnTheWayIsRefused) {
  fs::create_directory_symlink(outside_, work_ / "link");
  EXPECT_EQ(container::refusal_errno(write("link/x")), ELOOP);
  EXPECT_FALSE(fs::exists(outside_ / "x"));
}

// read_file's byte ranges in an engine session: the size, then `length` bytes from `first`
// (counted from 1), as tail and head give them. (Only with dash: busybox's realpath, which the
// resolving prefix of every read and list script uses, knows no -e.)
TEST(ReadScript, GivesARange) {
  char pattern[] = "/tmp/paddock-read-script.XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path work = pattern;
  std::ofstream(work / "data.txt") << "0123456789abcdef";
  auto read = [&](const std::string& length, const std::string& first) {
    return run_tool({"/bin/sh", "-c", container::kReadScript, "sh", work.string(), "data.txt",
                     length, first})
        .output;
  };
  EXPECT_EQ(read("4", "1"), "16\n0123");
  EXPECT_EQ(read("4", "11"), "16\nabcd");
  EXPECT_EQ(read("100", "15"), "16\nef");
  EXPECT_EQ(read("4", "17"), "16\n");
  fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Shells, WriteScript,
                         ::testing::Values(std::vector<std::string>{"/bin/sh"},
                                           std::vector<std::string>{"/usr/bin/busybox", "sh"}),
                         [](const auto& shell) {
                           return shell.param.size() == 1 ? "sh" : "busybox";
                         });

}  // namespace
}  // namespace paddock::testing::session_scripts_test
