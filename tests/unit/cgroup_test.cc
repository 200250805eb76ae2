#include <gtest/gtest.h>

#include "runtime/native/cgroup/cgroup_host.h"
#include "runtime/native/cgroup/cgroup_manager.h"
#include "support/fake_cgroup_fs.h"

namespace paddock::cgroup_test {
namespace {

using testing::FakeCgroupFs;

constexpr pid_t kSelf = 4242;

cgroup::CgroupLocation delegated(
    const std::string& own = "/user.slice/user@1000.service/app.slice/x") {
  return {"/sys/fs/cgroup", own};
}

bool nobody_alive(pid_t) {
  return false;
}

TEST(CgroupHost, FindsTheCgroup2MountAndOwnPath) {
  const char* mountinfo =
      "24 1 8:1 / / rw,relatime - ext4 /dev/vda rw\n"
      "30 24 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "35 24 0:29 / /sys/fs/cgroup/unified\\040dir rw,nosuid - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(cgroup::find_cgroup2_mount(mountinfo), "/sys/fs/cgroup/unified dir");
  EXPECT_FALSE(cgroup::find_cgroup2_mount("24 1 8:1 / / rw - ext4 /dev/vda rw\n").has_value());
  EXPECT_EQ(cgroup::find_unified_cgroup("12:pids:/x\n0::/user.slice/a.scope\n"),
            "/user.slice/a.scope");
  EXPECT_FALSE(cgroup::find_unified_cgroup("12:pids:/x\n").has_value());
  EXPECT_EQ((cgroup::CgroupLocation{"/sys/fs/cgroup", "/"}).own_directory(), "/sys/fs/cgroup");
  EXPECT_EQ((cgroup::CgroupLocation{"/sys/fs/cgroup", "/a"}).own_directory(), "/sys/fs/cgroup/a");
}

TEST(CgroupLimits, EachLimitGoesToItsFile) {
  runtime::Limits limits;
  limits.memory_bytes = 64 << 20;
  limits.pids = 32;
  limits.cpus = 0.5;
  auto writes = cgroup::plan_cgroup_limits(limits, /*has_swap_file=*/true);
  std::map<std::string, std::string> by_file;
  for (const auto& write : writes) by_file[write.file] = write.value;
  EXPECT_EQ(by_file["memory.max"], "67108864");
  EXPECT_EQ(by_file["memory.swap.max"], "0");
  EXPECT_EQ(by_file["pids.max"], "32");
  EXPECT_EQ(by_file["cpu.max"], "50000 100000");
  EXPECT_EQ(by_file.count("memory.high"), 0u);
}

TEST(CgroupLimits, OptionalFilesOnlyWhenAskedOrPresent) {
  runtime::Limits limits;
  limits.allow_swap = true;
  limits.memory_high_bytes = 1000;
  std::map<std::string, std::string> by_file;
  for (const auto& write : cgroup::plan_cgroup_limits(limits, true))
    by_file[write.file] = write.value;
  EXPECT_EQ(by_file.count("memory.swap.max"), 0u);
  EXPECT_EQ(by_file.count("cpu.max"), 0u);
  EXPECT_EQ(by_file["memory.high"], "1000");
  runtime::Limits tiny;
  tiny.cpus = 0.001;  // below the kernel's 1 ms minimum quota
  for (const auto& write : cgroup::plan_cgroup_limits(tiny, false)) {
    EXPECT_NE(write.file, "memory.swap.max");
    if (write.file == "cpu.max") {
      EXPECT_EQ(write.value, "1000 100000");
    }
  }
}

TEST(CgroupUsage, ParsesEventsPeakAndCpu) {
  cgroup::CgroupUsage usage =
      cgroup::parse_cgroup_usage("low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n", "67104768\n",
                                 "usage_usec 1234567\nuser_usec 1000000\n");
  EXPECT_TRUE(usage.oom_killed);
  EXPECT_EQ(usage.memory_peak_bytes, 67104768u);
  EXPECT_EQ(usage.cpu_usec, 1234567);
  cgroup::CgroupUsage quiet = cgroup::parse_cgroup_usage("oom 0\noom_kill 0\n", "", "");
  EXPECT_FALSE(quiet.oom_killed);
  EXPECT_EQ(quiet.memory_peak_bytes, 0u);
  EXPECT_FALSE(quiet.cpu_usec.has_value());
  EXPECT_EQ(quiet.pids_max_events, 0u);
}

TEST(CgroupUsage, CountsTheForksThePidsLimitRefused) {
  EXPECT_EQ(cgroup::parse_cgroup_usage("", "", "", "max 42\n").pids_max_events, 42u);
  EXPECT_EQ(cgroup::parse_cgroup_usage("", "", "", "max 0\n").pids_max_events, 0u);
}

TEST(CgroupAssess, NoMountMeansRlimits) {
  FakeCgroupFs fs;
  auto result = cgroup::assess_cgroups(fs, {"", "/"}, kSelf);
  EXPECT_FALSE(result.usable);
  EXPECT_NE(result.reason.find("cgroup v1"), std::string::npos);
}

TEST(CgroupAssess, MissingControllersAreNamed) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup/unified", "hugetlb");
  auto result = cgroup::assess_cgroups(fs, {"/sys/fs/cgroup/unified", "/"}, kSelf);
  EXPECT_FALSE(result.usable);
  EXPECT_NE(result.reason.find("memory, pids, cpu"), std::string::npos) << result.reason;
}

TEST(CgroupAssess, UnwritableCgroupSaysHowToDelegate) {
  FakeCgroupFs fs;
  auto where = delegated();
  fs.add_cgroup(where.own_directory());
  fs.make_read_only(where.own_directory() + "/cgroup.subtree_control");
  auto result = cgroup::assess_cgroups(fs, where, kSelf);
  EXPECT_FALSE(result.usable);
  EXPECT_NE(result.reason.find("Delegate=yes"), std::string::npos) << result.reason;
}

TEST(CgroupAssess, OtherProcessesInTheCgroupBlockIt) {
  FakeCgroupFs fs;
  auto where = delegated();
  fs.add_cgroup(where.own_directory());
  fs.set(where.own_directory() + "/cgroup.procs", "4242\n77\n");
  auto result = cgroup::assess_cgroups(fs, where, kSelf);
  EXPECT_FALSE(result.usable);
  EXPECT_NE(result.reason.find("pid 77"), std::string::npos) << result.reason;
}

TEST(CgroupAssess, ADelegatedParentHoldsTheSandboxesBesideTheShell) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup/tester");
  fs.add_cgroup("/sys/fs/cgroup/tester/shell");
  fs.set("/sys/fs/cgroup/tester/shell/cgroup.procs", "77\n4242\n");  // the shell and paddock
  auto result = cgroup::assess_cgroups(fs, {"/sys/fs/cgroup", "/tester/shell"}, kSelf);
  EXPECT_TRUE(result.usable) << result.reason;
  EXPECT_EQ(result.base, "/sys/fs/cgroup/tester");
  EXPECT_FALSE(result.needs_leaf);
  // Not when the parent is someone else's.
  fs.make_read_only("/sys/fs/cgroup/tester/cgroup.procs");
  auto refused = cgroup::assess_cgroups(fs, {"/sys/fs/cgroup", "/tester/shell"}, kSelf);
  EXPECT_FALSE(refused.usable);
  EXPECT_NE(refused.reason.find("pid 77"), std::string::npos) << refused.reason;
}

TEST(CgroupManager, DelegatedCgroupMovesPaddockIntoALeafThenEnablesControllers) {
  FakeCgroupFs fs;
  auto where = delegated();
  const std::string base = where.own_directory();
  fs.add_cgroup(base);
  fs.set(base + "/cgroup.procs", "4242\n");
  cgroup::CgroupManager manager(fs, where, kSelf, nobody_alive);
  manager.prepare();
  ASSERT_TRUE(manager.usable()) << manager.reason();
  ASSERT_GE(fs.writes.size(), 2u);
  // Leaving first is what makes enabling legal (the no-internal-process rule).
  EXPECT_EQ(fs.writes[0],
            (std::pair<std::string, std::string>{base + "/paddock-4242/cgroup.procs", "4242"}));
  EXPECT_EQ(fs.writes[1], (std::pair<std::string, std::string>{base + "/cgroup.subtree_control",
                                                               "+memory +pids +cpu"}));
}

TEST(CgroupManager, RootCgroupEnablesWithoutMoving) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  ASSERT_TRUE(manager.usable());
  ASSERT_EQ(fs.writes.size(), 1u);
  EXPECT_EQ(fs.writes[0].first, "/sys/fs/cgroup/cgroup.subtree_control");
  EXPECT_FALSE(fs.has_dir("/sys/fs/cgroup/paddock-4242"));
}

TEST(CgroupManager, PrivateCgroupNamespaceRootIsLeftOnEbusy) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  fs.fail_next_write("/sys/fs/cgroup/cgroup.subtree_control", EBUSY);
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  ASSERT_TRUE(manager.usable()) << manager.reason();
  EXPECT_EQ(fs.content("/sys/fs/cgroup/paddock-4242/cgroup.procs"), "4242");
}

TEST(CgroupManager, FailureToEnableFallsBackWithTheReason) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  fs.fail_next_write("/sys/fs/cgroup/cgroup.subtree_control", EBUSY);
  fs.fail_next_write("/sys/fs/cgroup/cgroup.subtree_control", EBUSY);
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  EXPECT_FALSE(manager.usable());
  EXPECT_NE(manager.reason().find("enabling"), std::string::npos) << manager.reason();
  auto created = manager.create_sandbox(runtime::Limits{});
  EXPECT_FALSE(created.ok());
}

TEST(CgroupManager, SandboxCgroupGetsItsLimitsAndGoesAway) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  runtime::Limits limits;
  limits.memory_bytes = 1 << 26;
  limits.pids = 16;
  limits.cpus = 2;
  auto first = manager.create_sandbox(limits);
  auto second = manager.create_sandbox(limits);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*first, "/sys/fs/cgroup/sandbox-4242-0");
  EXPECT_EQ(*second, "/sys/fs/cgroup/sandbox-4242-1");
  EXPECT_EQ(fs.content(*first + "/memory.max"), "67108864");
  EXPECT_EQ(fs.content(*first + "/memory.swap.max"), "0");
  EXPECT_EQ(fs.content(*first + "/pids.max"), "16");
  EXPECT_EQ(fs.content(*first + "/cpu.max"), "200000 100000");

  fs.set(*first + "/memory.events", "oom_kill 3\n");
  fs.set(*first + "/cpu.stat", "usage_usec 5000\n");
  cgroup::CgroupUsage usage = manager.usage(*first);
  EXPECT_TRUE(usage.oom_killed);
  EXPECT_EQ(usage.cpu_usec, 5000);

  ASSERT_TRUE(manager.destroy(*first).ok());
  EXPECT_EQ(fs.writes.back(), (std::pair<std::string, std::string>{*first + "/cgroup.kill", "1"}));
  EXPECT_FALSE(fs.has_dir(*first));
  EXPECT_TRUE(fs.has_dir(*second));
}

TEST(CgroupManager, WithoutCgroupKillTheCgroupIsFrozenAndEmptied) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  auto dir = manager.create_sandbox(runtime::Limits{});
  ASSERT_TRUE(dir.ok());
  fs.remove_file_for_test(*dir + "/cgroup.kill");  // a kernel before 5.14
  fs.set(*dir + "/cgroup.freeze", "0");
  fs.set(*dir + "/cgroup.procs", "");  // nothing left to kill: no real pid is signalled
  fs.writes.clear();
  ASSERT_TRUE(manager.destroy(*dir).ok());
  ASSERT_EQ(fs.writes.size(), 2u);
  EXPECT_EQ(fs.writes[0], (std::pair<std::string, std::string>{*dir + "/cgroup.freeze", "1"}));
  EXPECT_EQ(fs.writes[1], (std::pair<std::string, std::string>{*dir + "/cgroup.freeze", "0"}));
  EXPECT_FALSE(fs.has_dir(*dir));
}

TEST(CgroupManager, LimitWriteFailureRemovesTheHalfMadeCgroup) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf, nobody_alive);
  manager.prepare();
  fs.fail_next_write("/sys/fs/cgroup/sandbox-4242-0/pids.max", EINVAL);
  auto created = manager.create_sandbox(runtime::Limits{});
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.error().message.find("pids.max"), std::string::npos);
  EXPECT_FALSE(fs.has_dir("/sys/fs/cgroup/sandbox-4242-0"));
}

TEST(CgroupManager, StaleCgroupsOfDeadPaddocksAreRemovedOnStart) {
  FakeCgroupFs fs;
  fs.add_cgroup("/sys/fs/cgroup");
  fs.add_cgroup("/sys/fs/cgroup/sandbox-100-0");  // its paddock died
  fs.add_cgroup("/sys/fs/cgroup/paddock-100");
  fs.add_cgroup("/sys/fs/cgroup/sandbox-200-3");  // its paddock still runs
  fs.add_cgroup("/sys/fs/cgroup/system.slice");   // not ours
  cgroup::CgroupManager manager(fs, {"/sys/fs/cgroup", "/"}, kSelf,
                                [](pid_t pid) { return pid == 200; });
  manager.prepare();
  EXPECT_FALSE(fs.has_dir("/sys/fs/cgroup/sandbox-100-0"));
  EXPECT_FALSE(fs.has_dir("/sys/fs/cgroup/paddock-100"));
  EXPECT_TRUE(fs.has_dir("/sys/fs/cgroup/sandbox-200-3"));
  EXPECT_TRUE(fs.has_dir("/sys/fs/cgroup/system.slice"));
}

}  // namespace
}  // namespace paddock::cgroup_test
