#pragma once

// Turns what supervision saw into a RunResult, or into an Error when the sandbox could not be
// set up (the two channels never mix).

#include <string>

#include "core/result.h"
#include "runtime/native/cgroup_manager.h"
#include "runtime/native/id_map.h"
#include "runtime/native/prepared_run.h"
#include "runtime/native/supervisor.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_spec.h"

namespace paddock {

// What the sandbox's cgroup did, when it had one.
struct CgroupOutcome {
  std::string directory;  // empty in rlimit mode
  std::string reason;     // why cgroup2 or rlimit
  CgroupUsage usage;
};

Result<RunResult> to_run_result(const SandboxSpec& spec, const Prepared& prepared,
                                const IdMapPlan& ids, Supervised&& done,
                                const CgroupOutcome& cgroup);

}  // namespace paddock
