#pragma once

// The relay's filter (policies/seccomp/init_relay.json), compiled to BPF when paddock was built
// (tools/compile_seccomp.cc): paddock-init cannot carry libseccomp's compiler, and need not.

#include <linux/filter.h>

#include <span>

namespace paddock::seccomp {

std::span<const sock_filter> init_relay_bpf();

}  // namespace paddock::seccomp
