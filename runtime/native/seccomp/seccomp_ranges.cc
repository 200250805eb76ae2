#include "runtime/native/seccomp/seccomp_ranges.h"

#include <algorithm>
#include <limits>
#include <map>

namespace paddock::seccomp {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// The values one condition allows, as at most two intervals.
std::vector<Interval> allowed_by(const ArgCondition& condition) {
  std::uint64_t v = condition.value;
  switch (condition.op) {
    case CompareOp::kEqual:
      return {{v, v}};
    case CompareOp::kNotEqual: {
      std::vector<Interval> parts;
      if (v > 0) parts.push_back({0, v - 1});
      if (v < kMax) parts.push_back({v + 1, kMax});
      return parts;
    }
    case CompareOp::kLess:
      return v == 0 ? std::vector<Interval>{} : std::vector<Interval>{{0, v - 1}};
    case CompareOp::kLessOrEqual:
      return {{0, v}};
    case CompareOp::kGreater:
      return v == kMax ? std::vector<Interval>{} : std::vector<Interval>{{v + 1, kMax}};
    case CompareOp::kGreaterOrEqual:
      return {{v, kMax}};
    case CompareOp::kMaskedEqual:
      break;
  }
  return {};
}

std::vector<Interval> intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  for (const auto& x : a) {
    for (const auto& y : b) {
      std::uint64_t low = std::max(x.low, y.low), high = std::min(x.high, y.high);
      if (low <= high) out.push_back({low, high});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Interval& l, const Interval& r) { return l.low < r.low; });
  return out;
}

}  // namespace

std::vector<Interval> satisfying_intervals(const std::vector<ArgCondition>& conditions) {
  std::vector<Interval> allowed = {{0, kMax}};
  for (const auto& condition : conditions) allowed = intersect(allowed, allowed_by(condition));
  return allowed;
}

std::vector<ArgCondition> single_comparisons(unsigned index, Interval interval) {
  if (interval.low == interval.high) return {{index, CompareOp::kEqual, interval.low, 0}};
  if (interval.low == 0) return {{index, CompareOp::kLessOrEqual, interval.high, 0}};
  if (interval.high == kMax) return {{index, CompareOp::kGreaterOrEqual, interval.low, 0}};
  std::vector<ArgCondition> blocks;
  std::uint64_t low = interval.low;
  for (;;) {
    // The largest aligned block of 2^bits values that starts at `low` and stays inside.
    unsigned bits = 0;
    while (bits < 63 && (low & ((std::uint64_t{1} << (bits + 1)) - 1)) == 0 &&
           low + ((std::uint64_t{1} << (bits + 1)) - 1) <= interval.high) {
      ++bits;
    }
    std::uint64_t size_minus_one = (std::uint64_t{1} << bits) - 1;
    blocks.push_back({index, CompareOp::kMaskedEqual, ~size_minus_one, low});
    std::uint64_t last = low + size_minus_one;
    if (last >= interval.high) break;
    low = last + 1;
  }
  return blocks;
}

core::Result<std::vector<std::vector<ArgCondition>>> split_rule_arguments(
    const std::vector<ArgCondition>& args) {
  std::map<unsigned, std::vector<ArgCondition>> by_index;
  for (const auto& arg : args) by_index[arg.index].push_back(arg);

  std::vector<std::vector<ArgCondition>> alternatives = {{}};
  for (const auto& [index, conditions] : by_index) {
    std::vector<ArgCondition> choices;
    if (conditions.size() == 1) {
      choices = conditions;
    } else {
      for (const auto& condition : conditions) {
        if (condition.op == CompareOp::kMaskedEqual) {
          return core::invalid_input(
              "argument " + std::to_string(index) +
              ": SCMP_CMP_MASKED_EQ cannot be combined with other comparisons "
              "on the same argument");
        }
      }
      for (const auto& interval : satisfying_intervals(conditions)) {
        auto pieces = single_comparisons(index, interval);
        choices.insert(choices.end(), pieces.begin(), pieces.end());
      }
      if (choices.empty()) return std::vector<std::vector<ArgCondition>>{};  // never holds
    }
    std::vector<std::vector<ArgCondition>> expanded;
    for (const auto& partial : alternatives) {
      for (const auto& choice : choices) {
        expanded.push_back(partial);
        expanded.back().push_back(choice);
      }
    }
    alternatives = std::move(expanded);
  }
  return alternatives;
}

}  // namespace paddock::seccomp
