#include "runtime/session.h"

#include <gtest/gtest.h>

#include <string>

namespace paddock::session_path_test {
namespace {

TEST(SessionPath, RelativePathsAreAccepted) {
  for (const char* good : {"a", "data.csv", "out/data.csv", "a/b/c.txt", "./a", "a/./b", "a..b",
                           "..a", "a/b..", ".hidden", "dir/", "a//b"}) {
    EXPECT_TRUE(runtime::check_session_path(good).ok()) << good;
  }
  EXPECT_TRUE(runtime::check_session_path(std::string(4096, 'a')).ok())
      << "4096 bytes is the limit";
}

TEST(SessionPath, EmptyOnlyWhenAllowed) {
  core::Status empty = runtime::check_session_path("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, EINVAL);
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos) << empty.error().message;
  EXPECT_TRUE(runtime::check_session_path("", true).ok());
  EXPECT_TRUE(runtime::check_session_path("a/b", true).ok());
  EXPECT_FALSE(runtime::check_session_path("/", true).ok());
  EXPECT_FALSE(runtime::check_session_path("..", true).ok());
}

TEST(SessionPath, AbsolutePathsAreRefused) {
  for (const char* bad : {"/", "/etc/passwd", "/work/a"}) {
    core::Status status = runtime::check_session_path(bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.error().message.find("absolute"), std::string::npos) << status.error().message;
  }
}

TEST(SessionPath, DotDotIsRefused) {
  for (const char* bad :
       {"..", "../a", "a/../b", "a/..", "a/b/../../..", "a/../../etc/passwd", "../", "a//../b"}) {
    core::Status status = runtime::check_session_path(bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.error().message.find("\"..\""), std::string::npos) << status.error().message;
  }
}

TEST(SessionPath, NulIsRefused) {
  core::Status status = runtime::check_session_path(std::string("a\0b", 3));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("NUL"), std::string::npos) << status.error().message;
  EXPECT_FALSE(runtime::check_session_path(std::string(1, '\0'), true).ok());
}

TEST(SessionPath, LongPathsAreRefused) {
  core::Status status = runtime::check_session_path(std::string(4097, 'a'));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("4096"), std::string::npos) << status.error().message;
}

}  // namespace
}  // namespace paddock::session_path_test
