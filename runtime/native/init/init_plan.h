#pragma once

// The ChildPlan as bytes, so that the sandbox's init can be a program of its own (paddock-init)
// instead of a fork of paddock: the child execs paddock-init right after clone, paddock meanwhile
// encodes the plan into a memfd the child was given and seals it, and paddock-init, once told to
// go, decodes the plan into storage of its own.
// Nothing else of paddock's memory (an MCP server's other sessions, its secrets) reaches the
// sandbox.

#include <fcntl.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "runtime/native/init/child.h"

namespace paddock::init {

// What paddock-init requires of the plan's memfd: nothing can change it any more.
constexpr unsigned kPlanSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

// Bytes in a format private to one build of paddock and its paddock-init: both sides are built
// together, and the first field is a version that must match.
std::string encode_child_plan(const ChildPlan& plan);

// Everything a decoded plan's pointers point into, one deque per kind of value: a deque never
// moves what it holds as it grows. Typed, not shared_ptr<void>: paddock-init links no C++
// runtime library, so nothing here may need RTTI.
using PlanStorage =
    std::tuple<std::deque<std::string>, std::deque<std::vector<std::string>>,
               std::deque<std::vector<char*>>, std::deque<std::vector<const char*>>,
               std::deque<std::vector<char* const*>>, std::deque<std::vector<std::uint8_t>>,
               std::deque<std::vector<sock_filter>>, std::deque<MountPlan>,
               std::deque<std::vector<runtime::RlimitSetting>>, std::deque<std::vector<LateFile>>>;

// A decoded plan and everything its pointers point into: each field's storage, made by the
// decoder as the field's type needs (init_plan.cc), and kept as long as the plan.
struct DecodedPlan {
  ChildPlan plan;
  PlanStorage storage;
  // `plan.seccomp` with its refusals handed to the relay (init/seccomp_notify.h); empty when the
  // plan has its own init filter or the program cannot be rewritten.
  std::vector<sock_filter> notify_seccomp;
};

// nullptr when the bytes are not a plan of this build (truncated, another version).
std::unique_ptr<DecodedPlan> decode_child_plan(std::string_view bytes);

}  // namespace paddock::init
