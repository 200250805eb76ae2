#pragma once

// Compiles a seccomp Profile into a classic BPF program with libseccomp, in the parent, so that
// the sandboxed child only has to hand the finished program to the kernel (no allocation after
// clone). The filter covers the native architecture only: a system call made through another
// ABI (ia32 int 0x80, x32) kills the process.

#include <linux/filter.h>

#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/native/seccomp/seccomp_profile.h"

namespace paddock::seccomp {

struct BpfProgram {
  std::vector<sock_filter> instructions;
  std::vector<std::string> unknown_names;   // names this architecture does not have, skipped
  std::vector<std::string> quiet_refusals;  // Profile::quiet_refusals

  [[nodiscard]] sock_fprog as_fprog() const {
    return sock_fprog{static_cast<unsigned short>(instructions.size()),
                      const_cast<sock_filter*>(instructions.data())};
  }
};

core::Result<BpfProgram> compile(const Profile& profile);

}  // namespace paddock::seccomp
