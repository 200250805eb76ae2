#pragma once

// Names for the system call numbers paddock-init's relay counts (it has no table of its own).

#include <string>

namespace paddock::seccomp {

// The native architecture's name for `number` ("mount"), or "syscall N" when libseccomp has none.
std::string syscall_name(int number);

}  // namespace paddock::seccomp
