#include "runtime/native/user_namespace_check.h"

#include <gtest/gtest.h>

namespace paddock::user_namespace_check_test {
namespace {

// Ubuntu 23.10 and later as an unprivileged user sees it with no profile for paddock.
native::UserNamespaceHost ubuntu_restricted() {
  native::UserNamespaceHost host;
  host.can_create = false;
  host.max_user_namespaces = "63448";
  host.apparmor_restrict_userns = "1";
  return host;
}

TEST(UserNamespaceCheck, AppArmorRestrictionNamesTheProfileAndTheSysctl) {
  native::Check check = native::user_namespace_check(ubuntu_restricted());
  EXPECT_FALSE(check.available);
  EXPECT_NE(check.detail.find("/etc/apparmor.d/paddock"), std::string::npos) << check.detail;
  EXPECT_NE(check.detail.find("sysctl kernel.apparmor_restrict_unprivileged_userns=0"),
            std::string::npos)
      << check.detail;
  EXPECT_EQ(check.detail.find('\n'), std::string::npos) << "one line";
}

TEST(UserNamespaceCheck, RestrictedHostWithTheProfileLoadedIsReady) {
  native::UserNamespaceHost host = ubuntu_restricted();
  host.can_create = true;
  native::Check check = native::user_namespace_check(host);
  EXPECT_TRUE(check.available);
  EXPECT_NE(check.detail.find("a profile allows paddock"), std::string::npos) << check.detail;
}

TEST(UserNamespaceCheck, UnrestrictedHostSaysNothingOfAppArmor) {
  native::UserNamespaceHost host;
  host.can_create = true;
  host.max_user_namespaces = "63448";
  host.apparmor_restrict_userns = "0";
  native::Check check = native::user_namespace_check(host);
  EXPECT_TRUE(check.available);
  EXPECT_EQ(check.detail, "max_user_namespaces=63448");
}

TEST(UserNamespaceCheck, OtherSwitchesNameTheirOwnFix) {
  native::UserNamespaceHost off;
  off.max_user_namespaces = "0";
  EXPECT_NE(native::user_namespace_check(off).detail.find("user.max_user_namespaces=0"),
            std::string::npos);
  EXPECT_EQ(native::user_namespace_check(off).detail.find("apparmor"), std::string::npos);

  native::UserNamespaceHost debian_old;
  debian_old.max_user_namespaces = "63448";
  debian_old.unprivileged_userns_clone = "0";
  EXPECT_NE(
      native::user_namespace_check(debian_old).detail.find("kernel.unprivileged_userns_clone=1"),
      std::string::npos);

  // The AppArmor switch present but off: the refusal comes from elsewhere.
  native::UserNamespaceHost elsewhere;
  elsewhere.max_user_namespaces = "63448";
  elsewhere.apparmor_restrict_userns = "0";
  native::Check check = native::user_namespace_check(elsewhere);
  EXPECT_FALSE(check.available);
  EXPECT_EQ(check.detail.find("AppArmor"), std::string::npos) << check.detail;
}

}  // namespace
}  // namespace paddock::user_namespace_check_test
