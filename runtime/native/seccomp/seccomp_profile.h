#pragma once

// A seccomp profile in Docker's JSON format (defaultAction, syscalls[].names/action/args, with
// includes/excludes on arches, caps and minKernel), read into plain data for the compiler.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace paddock::seccomp {

struct Action {
  enum class Kind { kAllow, kErrno, kKillProcess, kKillThread, kTrap, kLog };
  Kind kind = Kind::kErrno;
  int errno_value = 1;  // for kErrno

  bool operator==(const Action&) const = default;
};

enum class CompareOp {
  kNotEqual,
  kLess,
  kLessOrEqual,
  kEqual,
  kGreaterOrEqual,
  kGreater,
  kMaskedEqual
};

struct ArgCondition {
  unsigned index = 0;  // syscall argument 0..5
  CompareOp op = CompareOp::kEqual;
  std::uint64_t value = 0;      // the mask, for kMaskedEqual (as in Docker's format)
  std::uint64_t value_two = 0;  // the expected masked value, for kMaskedEqual
};

struct Rule {
  std::vector<std::string> names;
  Action action;
  std::vector<ArgCondition> args;  // all must hold (AND); several rules for one name are ORed
};

struct Profile {
  Action default_action;
  std::vector<Rule> rules;  // only those that apply to this machine and to a process without
                            // capabilities (Docker's includes/excludes already resolved)
  // Calls refused as probes a library makes on every run (mbind and the other NUMA calls, which
  // numpy's allocator tries): still refused and counted, but not news to say after each run.
  // paddock's own key, "quietRefusals"; Docker and Podman ignore keys they do not know.
  std::vector<std::string> quiet_refusals;
};

// The facts that Docker's includes/excludes depend on.
struct Platform {
  std::string docker_arch;  // "amd64", "arm64", ...
  int kernel_major = 0;
  int kernel_minor = 0;
};
Platform this_platform();

// A profile with changes on top, as a language policy asks: every rule naming a `deny`ed call is
// dropped (so the default action, EPERM in paddock's profile, applies), and each `allow`ed call
// gets an unconditional allow rule.
void apply_changes(Profile& profile, const std::vector<std::string>& allow,
                   const std::vector<std::string>& deny);

// For a sandbox that writes a host folder (a read-write bind): no file it makes or changes may
// get the set-user-ID or set-group-ID bit. The bit would outlive the sandbox on the host (the
// bind is nosuid in the sandbox's mount namespace only), leaving a program that any local user
// who can reach the folder runs as its owner. The calls that set modes are allowed only without
// those bits (EPERM otherwise), and openat2, whose mode seccomp cannot see, fails with ENOSYS, so
// that callers fall back to openat.
void refuse_set_id_bits(Profile& profile);

// Parses Docker's JSON format. `origin` names the file in error messages, which also give the
// JSON pointer of what is wrong: "default.json: /syscalls/3/action: unknown action "X"".
core::Result<Profile> parse_profile(std::string_view json_text, std::string_view origin,
                                    const Platform& platform);

// The built-in profile (policies/seccomp/default.json, embedded at build time).
core::Result<Profile> default_profile();

// Loads a profile file given by the user.
core::Result<Profile> load_profile_file(const std::string& path);

}  // namespace paddock::seccomp
