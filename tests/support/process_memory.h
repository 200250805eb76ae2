#pragma once

// What a process (a paddock server under test) holds, read from /proc.

#include <sys/types.h>

namespace paddock::testing {

// The resident memory of `pid` in KiB (VmRSS of /proc/PID/status), or -1.
long resident_kib(pid_t pid);

}  // namespace paddock::testing
