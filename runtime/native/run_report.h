#pragma once

// Turns what supervision saw into a RunResult, or into an Error when the sandbox could not be
// set up (the two channels never mix).

#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/native/cgroup/cgroup_manager.h"
#include "runtime/native/id_map.h"
#include "runtime/native/prepared_run.h"
#include "runtime/native/supervisor.h"
#include "runtime/run_plan.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_shape.h"

namespace paddock::native {

// What the sandbox's cgroup did, when it had one.
struct CgroupOutcome {
  std::string directory;  // empty in rlimit mode
  std::string reason;     // why cgroup2 or rlimit
  cgroup::CgroupUsage usage;
};

// What was run: its commands (a one-off run's steps, or a session's one command), and the limits
// it ran under (the sandbox's, with its own timer and output cap).
struct RunReported {
  const std::vector<std::vector<std::string>>& steps;
  const runtime::Limits& limits;
};

// What a result says of the sandbox it ran in: namespaces, ids, filter, network, root, limits.
runtime::IsolationReport isolation_report(const runtime::SandboxShape& shape,
                                          const runtime::RunPlan& plan,
                                          const runtime::Limits& limits, const IdMapPlan& ids,
                                          const Prepared& prepared, const CgroupOutcome& cgroup);

// `shape` and `plan` are what the sandbox was launched with.
core::Result<runtime::RunResult> to_run_result(const runtime::SandboxShape& shape,
                                               const runtime::RunPlan& plan, const RunReported& run,
                                               const Prepared& prepared, const IdMapPlan& ids,
                                               Supervised&& done, const CgroupOutcome& cgroup);

}  // namespace paddock::native
