#include "runtime/rlimit_plan.h"

#include <vector>

#include <gtest/gtest.h>

#include "runtime/shared_budgets.h"

namespace paddock::rlimit_plan_test {
namespace {

const runtime::RlimitSetting* find(const std::vector<runtime::RlimitSetting>& plan, int resource) {
  for (const auto& setting : plan) {
    if (setting.resource == resource) return &setting;
  }
  return nullptr;
}

TEST(RlimitPlan, EveryLimitBecomesAHardLimit) {
  runtime::Limits limits;
  limits.memory_bytes = 100 << 20;
  limits.pids = 42;
  limits.file_size_bytes = 7 << 20;
  limits.open_files = 99;
  auto plan = runtime::plan_rlimits(limits, false);
  EXPECT_EQ(find(plan, RLIMIT_DATA)->value, 100u << 20);
  EXPECT_EQ(find(plan, RLIMIT_NPROC)->value, 42u);
  EXPECT_EQ(find(plan, RLIMIT_FSIZE)->value, 7u << 20);
  EXPECT_EQ(find(plan, RLIMIT_NOFILE)->value, 99u);
  EXPECT_EQ(find(plan, RLIMIT_CORE)->value, 0u);
  for (const auto& setting : plan) {
    if (setting.resource != RLIMIT_CPU) {
      EXPECT_EQ(setting.value, setting.hard) << setting.name;
    }
  }
  EXPECT_EQ(find(plan, RLIMIT_CPU), nullptr);  // no CPU limit unless asked
}

// Message-queue bytes and queued signals count against the server's user as well, up the user
// namespaces: each sandbox has its own share, in either mode.
TEST(RlimitPlan, MessageQueuesAndQueuedSignalsHaveTheSandboxsShare) {
  for (bool cgroup_mode : {false, true}) {
    auto plan = runtime::plan_rlimits(runtime::Limits{}, cgroup_mode);
    ASSERT_NE(find(plan, RLIMIT_MSGQUEUE), nullptr);
    EXPECT_EQ(find(plan, RLIMIT_MSGQUEUE)->value, runtime::kSandboxMessageQueueBytes);
    EXPECT_EQ(find(plan, RLIMIT_MSGQUEUE)->hard, runtime::kSandboxMessageQueueBytes);
    ASSERT_NE(find(plan, RLIMIT_SIGPENDING), nullptr);
    EXPECT_EQ(find(plan, RLIMIT_SIGPENDING)->value, runtime::kSandboxPendingSignals);
  }
}

TEST(RlimitPlan, CgroupModeLeavesMemoryToTheCgroup) {
  runtime::Limits limits;
  auto plan = runtime::plan_rlimits(limits, /*cgroup_mode=*/true);
  EXPECT_EQ(find(plan, RLIMIT_DATA), nullptr);
  EXPECT_EQ(find(plan, RLIMIT_NPROC), nullptr);
  EXPECT_NE(find(plan, RLIMIT_FSIZE), nullptr);
}

TEST(RlimitPlan, CpuTimeGetsAGraceSecondForSigxcpu) {
  runtime::Limits limits;
  limits.cpu_seconds = 2.2;
  // The plan outlives the pointer find() returns into it.
  std::vector<runtime::RlimitSetting> plan = runtime::plan_rlimits(limits, false);
  const runtime::RlimitSetting* cpu = find(plan, RLIMIT_CPU);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->value, 3u);
  EXPECT_EQ(cpu->hard, 4u);
  EXPECT_EQ(runtime::describe(*cpu), "RLIMIT_CPU=3");
}

}  // namespace
}  // namespace paddock::rlimit_plan_test
