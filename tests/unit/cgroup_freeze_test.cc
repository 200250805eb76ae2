#include "runtime/native/cgroup/cgroup_freeze.h"

#include <gtest/gtest.h>

#include "support/fake_cgroup_fs.h"

namespace paddock::cgroup_freeze_test {
namespace {

using testing::FakeCgroupFs;

constexpr const char* kDir = "/sys/fs/cgroup/paddock/sandbox-1-0";

FakeCgroupFs sandbox(const std::string& events) {
  FakeCgroupFs fs;
  fs.add_cgroup(kDir);
  fs.set(std::string(kDir) + "/cgroup.freeze", "0");
  fs.set(std::string(kDir) + "/cgroup.events", events);
  return fs;
}

TEST(CgroupFreeze, ReadsTheFrozenLineOfCgroupEvents) {
  EXPECT_TRUE(cgroup::cgroup_events_frozen("populated 1\nfrozen 1\n"));
  EXPECT_FALSE(cgroup::cgroup_events_frozen("populated 1\nfrozen 0\n"));
  EXPECT_FALSE(cgroup::cgroup_events_frozen("populated 1\n")) << "a kernel without the freezer";
  EXPECT_FALSE(cgroup::cgroup_events_frozen("frozen 10\n"));
  EXPECT_TRUE(cgroup::cgroup_events_frozen("frozen 1"));
}

TEST(CgroupFreeze, WritesCgroupFreezeAndReturnsOnceTheKernelAgrees) {
  auto fs = sandbox("populated 1\nfrozen 1\n");
  ASSERT_TRUE(cgroup::set_cgroup_frozen(fs, kDir, true).ok());
  EXPECT_EQ(fs.content(std::string(kDir) + "/cgroup.freeze"), "1");
  fs.set(std::string(kDir) + "/cgroup.events", "populated 1\nfrozen 0\n");
  ASSERT_TRUE(cgroup::set_cgroup_frozen(fs, kDir, false).ok());
  EXPECT_EQ(fs.content(std::string(kDir) + "/cgroup.freeze"), "0");
}

TEST(CgroupFreeze, AFreezeTheKernelNeverConfirmsIsATimeoutNamingTheCgroup) {
  auto fs = sandbox("populated 1\nfrozen 0\n");
  auto frozen = cgroup::set_cgroup_frozen(fs, kDir, true, std::chrono::milliseconds(20));
  ASSERT_FALSE(frozen.ok());
  EXPECT_EQ(frozen.error().code, ETIMEDOUT);
  EXPECT_NE(frozen.error().message.find(kDir), std::string::npos) << frozen.error().message;
  EXPECT_EQ(frozen.error().message.find('\n'), std::string::npos) << frozen.error().message;
}

TEST(CgroupFreeze, ACgroupWithoutTheFreezerIsRefusedAtOnce) {
  FakeCgroupFs fs;
  fs.add_cgroup(kDir);  // no cgroup.freeze: a cgroup v1 hierarchy, or a kernel before 5.2
  auto frozen = cgroup::set_cgroup_frozen(fs, kDir, true);
  ASSERT_FALSE(frozen.ok());
  EXPECT_EQ(frozen.error().code, ENOENT);
}

}  // namespace
}  // namespace paddock::cgroup_freeze_test
