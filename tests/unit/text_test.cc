#include "core/text.h"

#include <gtest/gtest.h>

namespace paddock::text_test {
namespace {

TEST(Text, CountedNounsAgreeWithTheirCount) {
  EXPECT_EQ(core::counted(0, "library", "libraries"), "0 libraries");
  EXPECT_EQ(core::counted(1, "library", "libraries"), "1 library");
  EXPECT_EQ(core::counted(2, "library", "libraries"), "2 libraries");
  EXPECT_EQ(core::counted(1, "process", "processes"), "1 process");
  EXPECT_EQ(core::counted(1000, "byte", "bytes"), "1000 bytes");
}

TEST(Text, LowerCaseAndTrim) {
  EXPECT_EQ(core::to_lower("Content-Type"), "content-type");
  EXPECT_EQ(core::trim(" \t text/plain \r\n"), "text/plain");
  EXPECT_EQ(core::trim("   "), "");
}

}  // namespace
}  // namespace paddock::text_test
