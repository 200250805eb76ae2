// A language policy's seccomp allow and deny lists, applied on top of a profile.

#include <linux/seccomp.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include "runtime/native/seccomp/seccomp_filter.h"
#include "runtime/native/seccomp/seccomp_profile.h"
#include "support/bpf_interpreter.h"

namespace paddock::seccomp_changes_test {
namespace {

std::uint32_t verdict(const seccomp::Profile& profile, int nr) {
  auto program = seccomp::compile(profile);
  EXPECT_TRUE(program.ok());
  return testing::seccomp_action(
      testing::run_seccomp_filter(program->instructions, testing::make_seccomp_data(nr)));
}

TEST(SeccompChanges, DenyRemovesACallFromEveryRule) {
  auto profile = seccomp::default_profile();
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(verdict(*profile, SYS_mkdir), SECCOMP_RET_ALLOW);
  ASSERT_EQ(verdict(*profile, SYS_socket), SECCOMP_RET_ALLOW);  // a conditional rule
  seccomp::apply_changes(*profile, {}, {"mkdir", "socket"});
  EXPECT_EQ(verdict(*profile, SYS_mkdir), SECCOMP_RET_ERRNO);
  EXPECT_EQ(verdict(*profile, SYS_socket), SECCOMP_RET_ERRNO);
  EXPECT_EQ(verdict(*profile, SYS_read), SECCOMP_RET_ALLOW);  // nothing else changed
}

TEST(SeccompChanges, AllowAddsACallAndDenyWins) {
  auto profile = seccomp::default_profile();
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(verdict(*profile, SYS_keyctl), SECCOMP_RET_ERRNO);
  seccomp::apply_changes(*profile, {"keyctl", "ptrace"}, {"ptrace"});
  EXPECT_EQ(verdict(*profile, SYS_keyctl), SECCOMP_RET_ALLOW);
  EXPECT_EQ(verdict(*profile, SYS_ptrace), SECCOMP_RET_ERRNO);
}

}  // namespace
}  // namespace paddock::seccomp_changes_test
