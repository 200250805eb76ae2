#include "core/units.h"

#include <gtest/gtest.h>

namespace paddock {
namespace {

TEST(Units, SizesInBinaryUnits) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("1048576"), 1048576u);
  EXPECT_EQ(parse_size("64k"), 64u * 1024);
  EXPECT_EQ(parse_size("512m"), 512ull << 20);
  EXPECT_EQ(parse_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_size("1.5g"), 3ull << 29);
  EXPECT_EQ(parse_size("2GB"), 2ull << 30);
}

TEST(Units, BadSizesAreRejected) {
  for (const char* bad : {"", "m", "-1", "1x", "1.2.3", "lots", "1e9", ".5", "99999999999999t"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
  }
}

TEST(Units, Decimals) {
  EXPECT_EQ(parse_decimal("2"), 2.0);
  EXPECT_EQ(parse_decimal("0.5"), 0.5);
  for (const char* bad : {"", "1s", "-1", "1e3", "inf", ".5"}) {
    EXPECT_FALSE(parse_decimal(bad).has_value()) << bad;
  }
}

TEST(Units, Seconds) {
  EXPECT_EQ(parse_seconds("2"), 2.0);
  EXPECT_EQ(parse_seconds("1.5s"), 1.5);
  EXPECT_EQ(parse_seconds("250ms"), 0.25);
  EXPECT_EQ(parse_seconds("2m"), 120.0);
  EXPECT_EQ(parse_seconds("1h"), 3600.0);
  for (const char* bad : {"", "soon", "-1", "1d", "s"}) {
    EXPECT_FALSE(parse_seconds(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace paddock
