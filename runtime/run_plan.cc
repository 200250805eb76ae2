#include "runtime/run_plan.h"

namespace paddock::runtime {

const std::vector<std::string>& RunPlan::program() const {
  static const std::vector<std::string> kNone;
  return steps.empty() ? kNone : steps.back();
}

Limits limits_of(const SandboxLimits& sandbox, const RunPlan& plan) {
  Limits limits;
  static_cast<SandboxLimits&>(limits) = sandbox;
  limits.wall_seconds = plan.wall_seconds;
  limits.output_bytes = plan.output_bytes;
  return limits;
}

}  // namespace paddock::runtime
