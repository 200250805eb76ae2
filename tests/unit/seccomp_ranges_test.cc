// satisfying_intervals, single_comparisons and split_rule_arguments, checked against the plain
// meaning of the comparisons. The sets involved are unions of intervals, so evaluating both sides
// at every interval boundary (and one point inside each gap between boundaries) is an exhaustive
// check over all 2^64 values, not a sample.

#include "runtime/native/seccomp/seccomp_ranges.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace seccomp_ranges_test {
namespace {

namespace seccomp = paddock::seccomp;
using seccomp::ArgCondition;
using seccomp::CompareOp;
using seccomp::Interval;

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

const std::vector<CompareOp> kPlainOps = {CompareOp::kNotEqual,       CompareOp::kLess,
                                          CompareOp::kLessOrEqual,    CompareOp::kEqual,
                                          CompareOp::kGreaterOrEqual, CompareOp::kGreater};

// --- The plain meaning, as libseccomp applies it to a 64-bit argument. ---

bool holds(const ArgCondition& c, std::uint64_t v) {
  switch (c.op) {
    case CompareOp::kNotEqual:
      return v != c.value;
    case CompareOp::kLess:
      return v < c.value;
    case CompareOp::kLessOrEqual:
      return v <= c.value;
    case CompareOp::kEqual:
      return v == c.value;
    case CompareOp::kGreaterOrEqual:
      return v >= c.value;
    case CompareOp::kGreater:
      return v > c.value;
    case CompareOp::kMaskedEqual:
      return (v & c.value) == c.value_two;
  }
  ADD_FAILURE() << "unknown CompareOp";
  return false;
}

// All conditions hold for the argument values `args` (indexed by argument number).
bool all_hold(const std::vector<ArgCondition>& conditions, const std::vector<std::uint64_t>& args) {
  return std::all_of(conditions.begin(), conditions.end(),
                     [&](const ArgCondition& c) { return holds(c, args.at(c.index)); });
}

bool all_hold_on(const std::vector<ArgCondition>& conditions, std::uint64_t v) {
  return std::all_of(conditions.begin(), conditions.end(),
                     [&](const ArgCondition& c) { return holds(c, v); });
}

bool inside_any(const std::vector<Interval>& intervals, std::uint64_t v) {
  return std::any_of(intervals.begin(), intervals.end(),
                     [&](const Interval& i) { return i.low <= v && v <= i.high; });
}

std::string hex(std::uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(v));
  return buffer;
}

std::string describe(const ArgCondition& c) {
  static const std::map<CompareOp, std::string> kNames = {
      {CompareOp::kNotEqual, "!="},       {CompareOp::kLess, "<"},
      {CompareOp::kLessOrEqual, "<="},    {CompareOp::kEqual, "=="},
      {CompareOp::kGreaterOrEqual, ">="}, {CompareOp::kGreater, ">"},
      {CompareOp::kMaskedEqual, "&"}};
  std::string text = "arg" + std::to_string(c.index) + " " + kNames.at(c.op) + " " + hex(c.value);
  if (c.op == CompareOp::kMaskedEqual) text += " == " + hex(c.value_two);
  return text;
}

std::string describe(const std::vector<ArgCondition>& conditions) {
  std::string text = "{";
  for (const auto& c : conditions) text += (text.size() > 1 ? ", " : "") + describe(c);
  return text + "}";
}

// --- Points at which to compare two unions of intervals. ---

void add_around(std::set<std::uint64_t>& points, std::uint64_t v) {
  for (std::uint64_t d = 0; d <= 2; ++d) {
    if (v >= d) points.insert(v - d);
    if (v <= kMax - d) points.insert(v + d);
  }
}

// `points` (every boundary of the sets compared) plus 0, max and one value inside every gap, so
// that two sets whose boundaries are all among `points` agree everywhere iff they agree here.
std::vector<std::uint64_t> with_gaps_filled(std::set<std::uint64_t> points) {
  points.insert(0);
  points.insert(kMax);
  std::vector<std::uint64_t> sorted(points.begin(), points.end());
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
    if (sorted[i + 1] - sorted[i] > 1) points.insert(sorted[i] + (sorted[i + 1] - sorted[i]) / 2);
  }
  return {points.begin(), points.end()};
}

// Boundaries that matter for a value in any test: 0/max, 32-bit edges, sign bits.
std::set<std::uint64_t> fixed_points() {
  std::set<std::uint64_t> points;
  for (unsigned bit = 0; bit < 64; ++bit) add_around(points, std::uint64_t{1} << bit);
  add_around(points, 0);
  add_around(points, kMax);
  add_around(points, 0xffffffffULL);
  add_around(points, 0xffffffff80000000ULL);
  return points;
}

// A value drawn so that edges (0, max, 32-bit boundary) and near-collisions come up often.
std::uint64_t interesting_value(std::mt19937_64& random) {
  static const std::vector<std::uint64_t> kEdges = {0,
                                                    1,
                                                    2,
                                                    38,
                                                    40,
                                                    0x5412,
                                                    0x7fffffff,
                                                    0x80000000,
                                                    0xffffffff,
                                                    0x100000000,
                                                    0x7fffffffffffffff,
                                                    0x8000000000000000,
                                                    kMax - 1,
                                                    kMax};
  switch (random() % 4) {
    case 0:
      return kEdges[random() % kEdges.size()];
    case 1:
      return random() % 64;  // small values collide, giving empty and adjacent ranges
    case 2:
      return kEdges[random() % kEdges.size()] + (random() % 5) - 2;  // wraps on purpose
    default:
      return random();
  }
}

std::vector<ArgCondition> random_conditions(std::mt19937_64& random, unsigned index,
                                            std::size_t count) {
  std::vector<ArgCondition> conditions;
  for (std::size_t i = 0; i < count; ++i) {
    conditions.push_back(
        {index, kPlainOps[random() % kPlainOps.size()], interesting_value(random), 0});
  }
  return conditions;
}

// --- satisfying_intervals ---

// Ascending, disjoint and non-empty, as the header promises.
void expect_well_formed(const std::vector<Interval>& intervals, const std::string& context) {
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    EXPECT_LE(intervals[i].low, intervals[i].high) << context << " interval " << i;
    if (i > 0) {
      EXPECT_LT(intervals[i - 1].high, intervals[i].low) << context << " interval " << i;
    }
  }
}

void expect_intervals_match(const std::vector<ArgCondition>& conditions) {
  const std::vector<Interval> intervals = seccomp::satisfying_intervals(conditions);
  const std::string context = describe(conditions);
  expect_well_formed(intervals, context);
  std::set<std::uint64_t> points = fixed_points();
  for (const auto& c : conditions) add_around(points, c.value);
  for (const auto& i : intervals) {
    add_around(points, i.low);
    add_around(points, i.high);
  }
  for (std::uint64_t v : with_gaps_filled(points)) {
    ASSERT_EQ(inside_any(intervals, v), all_hold_on(conditions, v)) << context << " at " << hex(v);
  }
}

TEST(SeccompRangesTest, NoConditionsAllowsEverything) {
  auto intervals = seccomp::satisfying_intervals({});
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0].low, 0u);
  EXPECT_EQ(intervals[0].high, kMax);
}

TEST(SeccompRangesTest, SocketFamiliesOfTheDefaultProfile) {
  auto intervals = seccomp::satisfying_intervals({{0, CompareOp::kLessOrEqual, 0xffffffff, 0},
                                                  {0, CompareOp::kNotEqual, 38, 0},
                                                  {0, CompareOp::kNotEqual, 40, 0}});
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_EQ(intervals[0].low, 0u);
  EXPECT_EQ(intervals[0].high, 37u);
  EXPECT_EQ(intervals[1].low, 39u);
  EXPECT_EQ(intervals[1].high, 39u);
  EXPECT_EQ(intervals[2].low, 41u);
  EXPECT_EQ(intervals[2].high, 0xffffffffu);
}

TEST(SeccompRangesTest, EdgesOfTheValueRange) {
  expect_intervals_match({{0, CompareOp::kNotEqual, 0, 0}});
  expect_intervals_match({{0, CompareOp::kNotEqual, kMax, 0}});
  expect_intervals_match({{0, CompareOp::kLess, 0, 0}});
  expect_intervals_match({{0, CompareOp::kGreater, kMax, 0}});
  expect_intervals_match({{0, CompareOp::kLessOrEqual, kMax, 0}});
  expect_intervals_match({{0, CompareOp::kGreaterOrEqual, 0, 0}});
  EXPECT_TRUE(seccomp::satisfying_intervals({{0, CompareOp::kLess, 0, 0}}).empty());
  EXPECT_TRUE(seccomp::satisfying_intervals({{0, CompareOp::kGreater, kMax, 0}}).empty());
  EXPECT_TRUE(
      seccomp::satisfying_intervals({{0, CompareOp::kEqual, 1, 0}, {0, CompareOp::kEqual, 2, 0}})
          .empty());
  EXPECT_TRUE(
      seccomp::satisfying_intervals({{0, CompareOp::kGreater, 9, 0}, {0, CompareOp::kLess, 10, 0}})
          .empty());
}

TEST(SeccompRangesTest, SatisfyingIntervalsMatchBruteForce) {
  std::mt19937_64 random(20240611);
  for (int round = 0; round < 3000; ++round) {
    auto conditions = random_conditions(random, 0, 1 + random() % 5);
    expect_intervals_match(conditions);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// --- single_comparisons ---

// The exact set of values one comparison from single_comparisons accepts, as an interval.
// Fails the test for anything else (e.g. a mask that is not a block of high bits).
Interval as_interval(const ArgCondition& c) {
  switch (c.op) {
    case CompareOp::kEqual:
      return {c.value, c.value};
    case CompareOp::kLessOrEqual:
      return {0, c.value};
    case CompareOp::kGreaterOrEqual:
      return {c.value, kMax};
    case CompareOp::kMaskedEqual: {
      const std::uint64_t low_bits = ~c.value;
      EXPECT_EQ(low_bits & (low_bits + 1), 0u) << describe(c) << ": mask is not ~(2^n - 1)";
      EXPECT_EQ(c.value_two & low_bits, 0u) << describe(c) << ": block start is not aligned";
      return {c.value_two, c.value_two | low_bits};
    }
    default:
      ADD_FAILURE() << describe(c) << ": single_comparisons must use ==, <=, >= or a mask";
      return {1, 0};
  }
}

void expect_exact_cover(unsigned index, Interval interval) {
  const std::string context = "[" + hex(interval.low) + ", " + hex(interval.high) + "]";
  const std::vector<ArgCondition> pieces = seccomp::single_comparisons(index, interval);
  ASSERT_FALSE(pieces.empty()) << context;
  // The greedy aligned-block split needs at most two blocks per bit position.
  EXPECT_LE(pieces.size(), 128u) << context;
  std::vector<Interval> covered;
  for (const auto& piece : pieces) {
    EXPECT_EQ(piece.index, index) << context << " " << describe(piece);
    covered.push_back(as_interval(piece));
  }
  std::sort(covered.begin(), covered.end(),
            [](const Interval& a, const Interval& b) { return a.low < b.low; });
  // Disjoint pieces laid end to end from low to high: the union is exactly the interval.
  EXPECT_EQ(covered.front().low, interval.low) << context;
  EXPECT_EQ(covered.back().high, interval.high) << context;
  for (std::size_t i = 1; i < covered.size(); ++i) {
    EXPECT_EQ(covered[i].low, covered[i - 1].high + 1) << context << " piece " << i;
  }
  // And the same by evaluating the comparisons themselves, which checks as_interval() too.
  std::set<std::uint64_t> points = fixed_points();
  add_around(points, interval.low);
  add_around(points, interval.high);
  for (const auto& i : covered) {
    add_around(points, i.low);
    add_around(points, i.high);
  }
  for (std::uint64_t v : with_gaps_filled(points)) {
    const bool accepted = std::any_of(pieces.begin(), pieces.end(),
                                      [&](const ArgCondition& c) { return holds(c, v); });
    ASSERT_EQ(accepted, interval.low <= v && v <= interval.high) << context << " at " << hex(v);
  }
}

TEST(SeccompRangesTest, SingleComparisonForSimpleIntervals) {
  auto point = seccomp::single_comparisons(3, {39, 39});
  ASSERT_EQ(point.size(), 1u);
  EXPECT_EQ(point[0].op, CompareOp::kEqual);
  EXPECT_EQ(point[0].value, 39u);
  EXPECT_EQ(point[0].index, 3u);
  auto prefix = seccomp::single_comparisons(1, {0, 37});
  ASSERT_EQ(prefix.size(), 1u);
  EXPECT_EQ(prefix[0].op, CompareOp::kLessOrEqual);
  EXPECT_EQ(prefix[0].value, 37u);
  auto suffix = seccomp::single_comparisons(1, {41, kMax});
  ASSERT_EQ(suffix.size(), 1u);
  EXPECT_EQ(suffix[0].op, CompareOp::kGreaterOrEqual);
  EXPECT_EQ(suffix[0].value, 41u);
  auto block = seccomp::single_comparisons(0, {4, 7});
  ASSERT_EQ(block.size(), 1u);
  EXPECT_EQ(block[0].op, CompareOp::kMaskedEqual);
  EXPECT_EQ(block[0].value, ~std::uint64_t{3});
  EXPECT_EQ(block[0].value_two, 4u);
}

TEST(SeccompRangesTest, SingleComparisonsCoverEdgeIntervalsExactly) {
  const std::vector<Interval> cases = {
      {0, 0},
      {kMax, kMax},
      {0, kMax},
      {1, kMax - 1},
      {3, 8},
      {41, 0xffffffff},
      {0x5413, 0x541b},
      {0x541d, 0xffffffff},
      {1, 1ULL << 63},
      {1ULL << 63, kMax - 1},
      {(1ULL << 63) - 1, 1ULL << 63},
      {0x100000000, 0x1ffffffff},
      {0xffffffff, 0x100000000},
      {2, kMax - 2},
  };
  for (const Interval& interval : cases) {
    expect_exact_cover(2, interval);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(SeccompRangesTest, SingleComparisonsCoverRandomIntervalsExactly) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::uint64_t a = interesting_value(random), b = interesting_value(random);
    expect_exact_cover(static_cast<unsigned>(random() % 6), {std::min(a, b), std::max(a, b)});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// --- split_rule_arguments ---

// Adds the values at which `c` changes from false to true or back, to points[c.index].
void add_boundaries(const ArgCondition& c, std::vector<std::set<std::uint64_t>>& points) {
  add_around(points[c.index], c.value);
  if (c.op == CompareOp::kMaskedEqual) {
    // For an aligned block (what the split makes) these are its ends; for any other mask, a few
    // values that match and do not.
    points[c.index].insert({c.value_two, c.value_two | ~c.value, c.value_two ^ 1, ~c.value_two});
    add_around(points[c.index], c.value_two);
    add_around(points[c.index], c.value_two | ~c.value);
  }
}

// The values worth trying for each argument: every boundary of the rule and of its split.
// Between two boundaries nothing changes, so for interval comparisons this is exhaustive.
std::vector<std::vector<std::uint64_t>> samples_for(
    const std::vector<ArgCondition>& args,
    const std::vector<std::vector<ArgCondition>>& alternatives) {
  std::vector<std::set<std::uint64_t>> points(6);
  for (const auto& c : args) add_boundaries(c, points);
  for (const auto& alternative : alternatives) {
    for (const auto& c : alternative) add_boundaries(c, points);
  }
  std::vector<std::vector<std::uint64_t>> samples(6);
  for (unsigned i = 0; i < 6; ++i) {
    // An argument without conditions needs one value only: nothing depends on it.
    samples[i] =
        points[i].empty() ? std::vector<std::uint64_t>{0x1234} : with_gaps_filled(points[i]);
  }
  return samples;
}

// Checks that `args` and the alternatives split_rule_arguments makes of them accept exactly the
// same argument vectors.
void expect_same_meaning(const std::vector<ArgCondition>& args) {
  const std::string context = describe(args);
  auto alternatives = seccomp::split_rule_arguments(args);
  ASSERT_TRUE(alternatives.ok()) << context << ": " << alternatives.error().message;
  for (const auto& alternative : *alternatives) {
    std::set<unsigned> seen;
    for (const auto& c : alternative) {
      EXPECT_TRUE(seen.insert(c.index).second)
          << context << ": two comparisons on arg" << c.index << " in " << describe(alternative);
    }
  }
  const auto samples = samples_for(args, *alternatives);
  // Every combination of the sample values (an odometer over the six arguments).
  std::vector<std::size_t> position(6, 0);
  std::vector<std::uint64_t> values(6);
  for (;;) {
    for (std::size_t i = 0; i < 6; ++i) values[i] = samples[i][position[i]];
    const bool expected = all_hold(args, values);
    const bool actual = std::any_of(alternatives->begin(), alternatives->end(),
                                    [&](const auto& alt) { return all_hold(alt, values); });
    if (expected != actual) {
      FAIL() << context << " at (" << hex(values[0]) << ", " << hex(values[1]) << ", "
             << hex(values[2]) << ", " << hex(values[3]) << ", " << hex(values[4]) << ", "
             << hex(values[5]) << "): expected " << expected;
    }
    std::size_t i = 0;
    while (i < 6 && ++position[i] == samples[i].size()) position[i++] = 0;
    if (i == 6) return;
  }
}

TEST(SeccompRangesTest, SplitWithoutArgumentsIsOneUnconditionalAlternative) {
  auto alternatives = seccomp::split_rule_arguments({});
  ASSERT_TRUE(alternatives.ok());
  ASSERT_EQ(alternatives->size(), 1u);  // zero alternatives would mean "never", not "always"
  EXPECT_TRUE((*alternatives)[0].empty());
}

TEST(SeccompRangesTest, SplitPassesSingleComparisonsThrough) {
  const std::vector<ArgCondition> args = {{0, CompareOp::kNotEqual, 5, 0},
                                          {1, CompareOp::kMaskedEqual, 0x7e020000, 0},
                                          {4, CompareOp::kLess, 9, 0}};
  auto alternatives = seccomp::split_rule_arguments(args);
  ASSERT_TRUE(alternatives.ok()) << alternatives.error().message;
  ASSERT_EQ(alternatives->size(), 1u);
  EXPECT_EQ(describe((*alternatives)[0]), describe(args));
}

TEST(SeccompRangesTest, SplitOfAnUnsatisfiableArgumentNeverHolds) {
  auto alternatives = seccomp::split_rule_arguments(
      {{2, CompareOp::kEqual, 1, 0}, {2, CompareOp::kEqual, 2, 0}, {0, CompareOp::kEqual, 0, 0}});
  ASSERT_TRUE(alternatives.ok()) << alternatives.error().message;
  EXPECT_TRUE(alternatives->empty());
}

TEST(SeccompRangesTest, SplitOfTheDefaultProfileRules) {
  const std::vector<ArgCondition> socket = {{0, CompareOp::kLessOrEqual, 0xffffffff, 0},
                                            {0, CompareOp::kNotEqual, 38, 0},
                                            {0, CompareOp::kNotEqual, 40, 0}};
  expect_same_meaning(socket);
  const std::vector<ArgCondition> ioctl = {{1, CompareOp::kLessOrEqual, 0xffffffff, 0},
                                           {1, CompareOp::kNotEqual, 0x5412, 0},
                                           {1, CompareOp::kNotEqual, 0x541c, 0}};
  expect_same_meaning(ioctl);
}

// Two arguments that both need splitting: the alternatives are every pairing.
TEST(SeccompRangesTest, SplitOfTwoSplitArguments) {
  expect_same_meaning({{0, CompareOp::kLessOrEqual, 0xffffffff, 0},
                       {0, CompareOp::kNotEqual, 38, 0},
                       {5, CompareOp::kGreater, 3, 0},
                       {0, CompareOp::kNotEqual, 40, 0},
                       {5, CompareOp::kLess, 100, 0},
                       {5, CompareOp::kNotEqual, 64, 0}});
}

TEST(SeccompRangesTest, SplitMatchesBruteForceOnRandomRules) {
  std::mt19937_64 random(99);
  for (int round = 0; round < 300; ++round) {
    // One argument with several comparisons (the case that is split), maybe one other with one.
    const auto index = static_cast<unsigned>(random() % 6);
    std::vector<ArgCondition> args = random_conditions(random, index, 1 + random() % 5);
    if (random() % 2 == 0) {
      const auto other = static_cast<unsigned>((index + 1 + random() % 5) % 6);
      if (random() % 2 == 0) {
        const std::uint64_t mask = interesting_value(random);
        args.push_back({other, CompareOp::kMaskedEqual, mask, interesting_value(random) & mask});
      } else {
        auto one = random_conditions(random, other, 1);
        args.push_back(one[0]);
      }
    }
    std::shuffle(args.begin(), args.end(), random);
    expect_same_meaning(args);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(SeccompRangesTest, MaskedEqualCombinedWithOthersIsAnError) {
  for (CompareOp other : {CompareOp::kNotEqual, CompareOp::kLessOrEqual, CompareOp::kMaskedEqual}) {
    auto alternatives = seccomp::split_rule_arguments({{1, CompareOp::kEqual, 3, 0},
                                                       {3, other, 0xff, 0},
                                                       {3, CompareOp::kMaskedEqual, 0xf0, 0x10}});
    ASSERT_FALSE(alternatives.ok());
    EXPECT_EQ(alternatives.error().code, EINVAL);
    EXPECT_THAT(alternatives.error().message, ::testing::HasSubstr("argument 3"));
    EXPECT_THAT(alternatives.error().message, ::testing::HasSubstr("SCMP_CMP_MASKED_EQ"));
  }
}

}  // namespace
}  // namespace seccomp_ranges_test
