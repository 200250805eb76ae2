#pragma once

// libseccomp accepts one comparison per argument in a rule, but a profile may AND several on the
// same argument ("<= 0xffffffff and != 38 and != 40"). This turns such a conjunction into the set
// of allowed values (disjoint intervals) and each interval into single comparisons, one rule
// each, which libseccomp ORs back together.

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/native/seccomp/seccomp_profile.h"

namespace paddock::seccomp {

struct Interval {
  std::uint64_t low = 0;   // inclusive
  std::uint64_t high = 0;  // inclusive
};

// The values satisfying every condition (all on one argument, none kMaskedEqual), ascending.
std::vector<Interval> satisfying_intervals(const std::vector<ArgCondition>& conditions);

// One comparison per entry whose union is exactly `interval`: LE, GE or EQ where that suffices,
// otherwise aligned blocks as kMaskedEqual.
std::vector<ArgCondition> single_comparisons(unsigned index, Interval interval);

// A rule's arguments as alternatives: each inner list has at most one comparison per argument,
// and the rule holds when any alternative holds. Error if an argument mixes kMaskedEqual with
// other comparisons.
core::Result<std::vector<std::vector<ArgCondition>>> split_rule_arguments(
    const std::vector<ArgCondition>& args);

}  // namespace paddock::seccomp
