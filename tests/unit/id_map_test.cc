#include "runtime/native/id_map.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace paddock::id_map_test {
namespace {

TEST(IdMap, FindsRangesByNameOrUid) {
  const char* file = "alice:100000:65536\n1001:200000:1000\nbroken line\nbob:x:y\ncarol:300000:0\n";
  auto alice = native::find_subordinate_range(file, "alice", 1000);
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->start, 100000u);
  EXPECT_EQ(alice->count, 65536u);
  auto by_uid = native::find_subordinate_range(file, "nobody-by-that-name", 1001);
  ASSERT_TRUE(by_uid.has_value());
  EXPECT_EQ(by_uid->start, 200000u);
  EXPECT_FALSE(native::find_subordinate_range(file, "bob", 5).has_value());
  EXPECT_FALSE(native::find_subordinate_range(file, "carol", 6).has_value());  // empty range
  EXPECT_FALSE(native::find_subordinate_range("", "alice", 1000).has_value());
}

TEST(IdMap, RootMapsToAHighUnusedIdPerSandbox) {
  native::IdMapHost root;
  native::IdMapPlan first = native::plan_id_map(root, 4242, 1000, 1000);
  native::IdMapPlan second = native::plan_id_map(root, 4243, 1000, 1000);
  EXPECT_EQ(first.method, native::IdMapMethod::kRoot);
  EXPECT_NE(first.host_uid, 0u);
  EXPECT_GE(first.host_uid, native::kRootHostIdBase);
  EXPECT_NE(first.host_uid, second.host_uid);  // RLIMIT_NPROC and kill() cannot cross sandboxes
  EXPECT_TRUE(first.setgroups_allowed);        // so supplementary groups can be dropped
  EXPECT_EQ(first.inside_uid, 1000u);
}

TEST(IdMap, UnprivilegedWithSubordinateIdsUsesThem) {
  native::IdMapHost user{1000, 1000, native::IdRange{100000, 65536}, native::IdRange{100000, 65536},
                         true};
  native::IdMapPlan plan = native::plan_id_map(user, 70000, 1000, 1000);
  EXPECT_EQ(plan.method, native::IdMapMethod::kSubordinate);
  EXPECT_GE(plan.host_uid, 100000u);
  EXPECT_LT(plan.host_uid, 100000u + 65536);
  EXPECT_NE(plan.host_uid, 1000u);
}

TEST(IdMap, UnprivilegedWithoutHelpersMapsItself) {
  native::IdMapHost no_helpers{1000, 1000, native::IdRange{100000, 65536},
                               native::IdRange{100000, 65536}, false};
  native::IdMapPlan plan = native::plan_id_map(no_helpers, 7, 1000, 1000);
  EXPECT_EQ(plan.method, native::IdMapMethod::kSelf);
  EXPECT_EQ(plan.host_uid, 1000u);
  EXPECT_FALSE(plan.setgroups_allowed);  // the kernel requires it for unprivileged gid maps
  native::IdMapHost no_ranges{1000, 1000, std::nullopt, std::nullopt, true};
  EXPECT_EQ(native::plan_id_map(no_ranges, 7, 1000, 1000).method, native::IdMapMethod::kSelf);
}

TEST(IdMap, AReadWriteBindMapsTheSandboxUserToTheFoldersOwner) {
  native::IdMapHost root;
  native::IdMapPlan as_root =
      native::plan_id_map(root, 4242, 1000, 1000, native::HostOwner{1001, 1002});
  EXPECT_EQ(as_root.method, native::IdMapMethod::kRoot);
  EXPECT_EQ(as_root.host_uid, 1001u);
  EXPECT_EQ(as_root.host_gid, 1002u);
  EXPECT_EQ(as_root.inside_uid, 1000u);
  native::IdMapHost user{1000, 1000, native::IdRange{100000, 65536}, native::IdRange{100000, 65536},
                         true};
  native::IdMapPlan as_user =
      native::plan_id_map(user, 70000, 1000, 1000, native::HostOwner{1000, 1000});
  EXPECT_EQ(as_user.method, native::IdMapMethod::kSelf);  // the user itself, not a subordinate id
  EXPECT_EQ(as_user.host_uid, 1000u);
  EXPECT_FALSE(as_user.setgroups_allowed);
}

TEST(IdMap, AReadWriteBindOfRootOrAnotherUserIsRefused) {
  char name[] = "/tmp/paddock-idmap-XXXXXX";
  std::string folder = mkdtemp(name);
  native::IdMapHost root;
  native::IdMapHost someone_else{4321, 4321, std::nullopt, std::nullopt, false};
  auto owned = native::writable_bind_owner(geteuid() == 0 ? root : someone_else, {folder});
  ASSERT_FALSE(owned);
  EXPECT_NE(owned.error().message.find(geteuid() == 0 ? "owned by root" : "not by you"),
            std::string::npos)
      << owned.error().message;
  auto none = native::writable_bind_owner(root, {});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  if (geteuid() != 0) {
    native::IdMapHost me{geteuid(), getegid(), std::nullopt, std::nullopt, false};
    auto mine = native::writable_bind_owner(me, {folder});
    ASSERT_TRUE(mine) << mine.error().message;
    EXPECT_EQ((*mine)->uid, geteuid());
  }
  EXPECT_FALSE(writable_bind_owner(root, {folder + "/missing"}));
  rmdir(folder.c_str());
}

}  // namespace
}  // namespace paddock::id_map_test