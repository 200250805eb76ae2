#pragma once

// Turns what supervision saw into a RunResult, or into an Error when the sandbox could not be
// set up (the two channels never mix).

#include <string>

#include "core/result.h"
#include "native/cgroup_manager.h"
#include "native/id_map.h"
#include "native/prepared_run.h"
#include "native/supervisor.h"
#include "run_result.h"
#include "sandbox_spec.h"

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
