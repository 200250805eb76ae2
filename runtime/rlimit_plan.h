#pragma once

// Resource limits as setrlimit calls, soft = hard so the program cannot raise them.
//
// Memory is RLIMIT_DATA (private writable memory: heap, anonymous mmap, thread stacks) rather
// than RLIMIT_AS, because Go and the JVM reserve far more address space than they ever touch.
// Processes are RLIMIT_NPROC, which since Linux 5.14 counts per user namespace, so it counts the
// sandbox's own processes and threads (its init included) and nothing of the host's.
// These are per-process limits: with N processes, memory can reach N times the limit. Per-sandbox
// totals need cgroups v2 (limits_mode "cgroup2"), where the host delegates them.

#include <sys/resource.h>

#include <string>
#include <vector>

#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct RlimitSetting {
  int resource;
  rlim_t value;      // soft limit
  rlim_t hard;       // hard limit; equal to value except RLIMIT_CPU, which gets a grace second
  const char* name;  // "RLIMIT_NPROC"
};

// With cgroups (`cgroup_mode`), memory and processes are the cgroup's memory.max and pids.max
// for the sandbox as a whole, so RLIMIT_DATA and RLIMIT_NPROC are left out: one authority per
// limit, and a test that can tell which one acted.
std::vector<RlimitSetting> plan_rlimits(const SandboxLimits& limits, bool cgroup_mode);

// The per-sandbox totals that rlimits cannot hold, named as their flags are (for the result's
// not_enforced): memory, because RLIMIT_DATA binds each process alone and does not count tmpfs
// or shared memory at all, and a CPU share, which only cpu.max can give. Processes are not
// here: RLIMIT_NPROC counts the sandbox's user namespace as a whole.
std::vector<std::string> totals_rlimits_cannot_enforce();

// "RLIMIT_NPROC=256", for the result's report.
std::string describe(const RlimitSetting& setting);

}  // namespace paddock::runtime
