#include "core/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace paddock::units_test {
namespace {

TEST(Units, SizesInBinaryUnits) {
  EXPECT_EQ(core::parse_size("0"), 0u);
  EXPECT_EQ(core::parse_size("1048576"), 1048576u);
  EXPECT_EQ(core::parse_size("64k"), 64u * 1024);
  EXPECT_EQ(core::parse_size("512m"), 512ull << 20);
  EXPECT_EQ(core::parse_size("512M"), 512ull << 20);
  EXPECT_EQ(core::parse_size("512MiB"), 512ull << 20);
  EXPECT_EQ(core::parse_size("1.5g"), 3ull << 29);
  EXPECT_EQ(core::parse_size("2GB"), 2ull << 30);
}

TEST(Units, BadSizesAreRejected) {
  for (const char* bad : {"", "m", "-1", "1x", "1.2.3", "lots", "1e9", ".5", "99999999999999t"}) {
    EXPECT_FALSE(core::parse_size(bad).has_value()) << bad;
  }
}

TEST(Units, Decimals) {
  EXPECT_EQ(core::parse_decimal("2"), 2.0);
  EXPECT_EQ(core::parse_decimal("0.5"), 0.5);
  for (const char* bad : {"", "1s", "-1", "1e3", "inf", ".5"}) {
    EXPECT_FALSE(core::parse_decimal(bad).has_value()) << bad;
  }
}

TEST(Units, Seconds) {
  EXPECT_EQ(core::parse_seconds("2"), 2.0);
  EXPECT_EQ(core::parse_seconds("1.5s"), 1.5);
  EXPECT_EQ(core::parse_seconds("250ms"), 0.25);
  EXPECT_EQ(core::parse_seconds("2m"), 120.0);
  EXPECT_EQ(core::parse_seconds("1h"), 3600.0);
  for (const char* bad : {"", "soon", "-1", "1d", "s"}) {
    EXPECT_FALSE(core::parse_seconds(bad).has_value()) << bad;
  }
}

TEST(Units, DurationsInWholeUnitsOfTheLargestThatFits) {
  EXPECT_EQ(core::format_duration(0), "0 s");
  EXPECT_EQ(core::format_duration(0.4), "0 s");
  EXPECT_EQ(core::format_duration(3.9), "3 s");
  EXPECT_EQ(core::format_duration(59.99), "59 s");
  EXPECT_EQ(core::format_duration(60), "1 min");
  EXPECT_EQ(core::format_duration(12 * 60 + 59), "12 min");
  EXPECT_EQ(core::format_duration(3599), "59 min");
  EXPECT_EQ(core::format_duration(3600), "1 h");
  EXPECT_EQ(core::format_duration(23 * 3600 + 3599), "23 h");
  EXPECT_EQ(core::format_duration(86400), "1 d");
  EXPECT_EQ(core::format_duration(10 * 86400 + 5), "10 d");
}

TEST(Units, DurationsPaddockCannotHaveMeasuredAreNone) {
  EXPECT_EQ(core::format_duration(-5), "0 s");
  EXPECT_EQ(core::format_duration(std::nan("")), "0 s");
  EXPECT_EQ(core::format_duration(std::numeric_limits<double>::infinity()), "0 s");
  EXPECT_NE(core::format_duration(1e300).find(" d"), std::string::npos) << "no overflow";
}

TEST(Units, SizesAsPeopleReadThem) {
  EXPECT_EQ(core::format_size(0), "0 bytes");
  EXPECT_EQ(core::format_size(1), "1 byte");
  EXPECT_EQ(core::format_size(1023), "1023 bytes");
  EXPECT_EQ(core::format_size(1536), "1.5 KiB");
  EXPECT_EQ(core::format_size(20u << 20), "20.0 MiB");
  EXPECT_EQ(core::format_size(1ull << 30), "1.0 GiB");
  EXPECT_EQ(core::format_size(~0ull), "16.0 EiB");
}

}  // namespace
}  // namespace paddock::units_test
