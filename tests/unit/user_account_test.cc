// The password file as paddock reads it itself (core/user_account.h says why not through NSS).

#include "core/user_account.h"

#include <gtest/gtest.h>

namespace paddock::core::user_account_test {
namespace {

constexpr const char* kPasswd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "# a comment line has too few fields\n"
    "broken:x:notanumber:5::/:/bin/sh\n"
    "\n"
    "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
    "alias:x:1000:77::/home/alias:/bin/sh\n"
    "nogecos:x:4294967294:65534";

TEST(UserAccount, FindsTheFirstEntryOfAUid) {
  auto alice = find_passwd_entry(kPasswd, 1000);
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->gid, 1000u);
  auto root = find_passwd_entry(kPasswd, 0);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->name, "root");
}

TEST(UserAccount, AShortOrBrokenLineIsNoEntry) {
  EXPECT_FALSE(find_passwd_entry(kPasswd, 5));
  EXPECT_FALSE(find_passwd_entry(kPasswd, 1999999999));
  auto last = find_passwd_entry(kPasswd, 4294967294u);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->gid, 65534u);
  EXPECT_FALSE(find_passwd_entry("", 0));
  EXPECT_FALSE(find_passwd_entry("x:y:0:-1\n", 0));
}

TEST(UserAccount, TheHostsRootIsRoot) {
  auto root = passwd_entry(0);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->name, "root");
  EXPECT_EQ(primary_group_of(0), gid_t{0});
}

}  // namespace
}  // namespace paddock::core::user_account_test
