// The default filter's notify form (runtime/native/init/seccomp_notify.h): it hands the
// supervisor exactly the calls the errno form refuses with an errno, leaves every other
// decision alone, and the supervisor's answer is the errno form's own errno. Checked against
// the tests' independent BPF interpreter over every system call number and the arguments the
// profile's conditional rules look at.

#include "runtime/native/init/seccomp_notify.h"

#include <linux/audit.h>

#include <gtest/gtest.h>

#include "runtime/native/seccomp/default_seccomp_bpf.h"
#include "support/bpf_interpreter.h"

namespace paddock::seccomp_notify_test {
namespace {

using testing::make_seccomp_data;
using testing::run_seccomp_filter;
using testing::seccomp_action;
using testing::seccomp_ret_data;

std::vector<sock_filter> notify_form(std::span<const sock_filter> program) {
  std::vector<sock_filter> notify(program.size());
  EXPECT_TRUE(seccomp::to_notify_program(program.data(), program.size(), notify.data()));
  return notify;
}

// Arguments that reach the profile's conditional rules (clone flags, personality, socket
// families, ioctl requests) and their neighbours.
std::vector<std::array<std::uint64_t, 6>> argument_samples() {
  std::vector<std::array<std::uint64_t, 6>> samples = {{}};
  for (std::uint64_t value :
       {1ull, 2ull, 8ull, 38ull, 40ull, 0x5412ull, 0x541bull, 0x5422ull, 0x0008ull, 0x20000ull,
        0x10000000ull, 0x7e020000ull, 0x40000ull, 0xffffffffull, 0x100000000ull | 38}) {
    for (std::size_t index = 0; index < 3; ++index) {
      std::array<std::uint64_t, 6> args{};
      args[index] = value;
      samples.push_back(args);
    }
  }
  return samples;
}

TEST(SeccompNotify, PassesTheKernelsLoadChecks) {
  EXPECT_EQ(testing::validate_seccomp_program(notify_form(seccomp::default_bpf())), "");
}

TEST(SeccompNotify, NotifiesExactlyWhatTheErrnoFormRefusesAndAnswersWithItsErrno) {
  auto errno_form = seccomp::default_bpf();
  std::vector<sock_filter> notify = notify_form(errno_form);
  std::size_t refused = 0, allowed = 0;
  const std::uint32_t arches[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386};
  for (std::uint32_t arch : arches) {
    for (int nr = 0; nr < 460; ++nr) {
      for (const auto& args : argument_samples()) {
        seccomp_data data = make_seccomp_data(nr, args, arch);
        std::uint32_t before = run_seccomp_filter(errno_form, data);
        std::uint32_t after = run_seccomp_filter(notify, data);
        if (seccomp_action(before) == SECCOMP_RET_ERRNO && seccomp_ret_data(before) != 0) {
          ++refused;
          ASSERT_EQ(after, SECCOMP_RET_USER_NOTIF) << "nr " << nr;
          ASSERT_EQ(seccomp::refused_errno(errno_form.data(), errno_form.size(), data),
                    static_cast<int>(seccomp_ret_data(before)))
              << "nr " << nr;
        } else {
          if (before == SECCOMP_RET_ALLOW) ++allowed;
          ASSERT_EQ(after, before) << "nr " << nr;  // allowed stays allowed, kill stays kill
        }
      }
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(allowed, 0u);
}

TEST(SeccompNotify, TheAnswerIsNeverASuccess) {
  // A program that allows what it is asked about: the supervisor still refuses (EPERM).
  sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  EXPECT_EQ(seccomp::refused_errno(allow_all, 1, make_seccomp_data(0)), EPERM);
  // A malformed one (running off its end, loading outside seccomp_data) too.
  sock_filter no_return[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0)};
  EXPECT_EQ(seccomp::refused_errno(no_return, 1, make_seccomp_data(0)), EPERM);
  sock_filter out_of_bounds[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4096),
                                 BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 5)};
  EXPECT_EQ(seccomp::refused_errno(out_of_bounds, 2, make_seccomp_data(0)), EPERM);
  sock_filter errno_zero[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0)};
  EXPECT_EQ(seccomp::refused_errno(errno_zero, 1, make_seccomp_data(0)), EPERM);
}

TEST(SeccompNotify, LeavesAFakedSuccessAndRegisterReturnsAlone) {
  // ERRNO(0) is no refusal: it stays as it is, not a question for the supervisor.
  sock_filter fake[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0)};
  sock_filter out[1];
  ASSERT_TRUE(seccomp::to_notify_program(fake, 1, out));
  EXPECT_EQ(out[0].k, SECCOMP_RET_ERRNO | 0u);
  // A return through the accumulator cannot be rewritten: the caller keeps the errno form.
  sock_filter by_register[] = {BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_ERRNO | 1),
                               BPF_STMT(BPF_RET | BPF_A, 0)};
  sock_filter out2[2];
  EXPECT_FALSE(seccomp::to_notify_program(by_register, 2, out2));
}

}  // namespace
}  // namespace paddock::seccomp_notify_test
