#pragma once

// The built-in profile (policies/seccomp/default.json), compiled to BPF when paddock was built
// (tools/compile_seccomp.cc), so that a run does not pay for libseccomp's compiler. A unit test
// checks that it equals a fresh compile of the profile.

#include <linux/filter.h>

#include <span>

namespace paddock::seccomp {

std::span<const sock_filter> default_bpf();

// Its quietRefusals (seccomp_profile.h), in the profile's order.
std::span<const char* const> default_bpf_quiet_refusals();

}  // namespace paddock::seccomp
