#include "runtime/native/seccomp/syscall_names.h"

#include <seccomp.h>

#include <cstdlib>
#include <memory>

namespace paddock::seccomp {

std::string syscall_name(int number) {
  // libseccomp hands back a copy the caller frees.
  std::unique_ptr<char, decltype(&std::free)> name(
      seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number), &std::free);
  if (name == nullptr) return "syscall " + std::to_string(number);
  return name.get();
}

}  // namespace paddock::seccomp
