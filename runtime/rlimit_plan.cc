#include "runtime/rlimit_plan.h"

#include <cmath>

#include "runtime/shared_budgets.h"

namespace paddock::runtime {

std::vector<RlimitSetting> plan_rlimits(const SandboxLimits& limits, bool cgroup_mode) {
  std::vector<RlimitSetting> plan = {
      {RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes, "RLIMIT_FSIZE"},
      {RLIMIT_NOFILE, limits.open_files, limits.open_files, "RLIMIT_NOFILE"},
      {RLIMIT_CORE, 0, 0, "RLIMIT_CORE"},
      {RLIMIT_MEMLOCK, 8u << 20, 8u << 20, "RLIMIT_MEMLOCK"},
      {RLIMIT_RTPRIO, 0, 0, "RLIMIT_RTPRIO"},
      {RLIMIT_NICE, 0, 0, "RLIMIT_NICE"},
      // Charged to the server's user too, up the user namespaces (shared_budgets.h).
      {RLIMIT_MSGQUEUE, kSandboxMessageQueueBytes, kSandboxMessageQueueBytes, "RLIMIT_MSGQUEUE"},
      {RLIMIT_SIGPENDING, kSandboxPendingSignals, kSandboxPendingSignals, "RLIMIT_SIGPENDING"},
  };
  if (!cgroup_mode) {
    plan.insert(plan.begin(),
                {{RLIMIT_DATA, limits.memory_bytes, limits.memory_bytes, "RLIMIT_DATA"},
                 {RLIMIT_NPROC, limits.pids, limits.pids, "RLIMIT_NPROC"}});
  }
  if (limits.cpu_seconds) {
    // SIGXCPU at the soft limit (catchable, so the program may report it), SIGKILL a second later.
    auto seconds = static_cast<rlim_t>(std::ceil(*limits.cpu_seconds));
    if (seconds == 0) seconds = 1;
    plan.push_back({RLIMIT_CPU, seconds, seconds + 1, "RLIMIT_CPU"});
  }
  return plan;
}

std::vector<std::string> totals_rlimits_cannot_enforce() {
  return {"memory", "cpus"};
}

std::string describe(const RlimitSetting& setting) {
  return std::string(setting.name) + "=" + std::to_string(setting.value);
}

}  // namespace paddock::runtime
