#include "runtime/native/sandbox_process.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <gtest/gtest.h>

namespace paddock::sandbox_process_test {
namespace {

// A child that would outlive the test by far, owned through a pidfd.
native::SandboxProcess sleeping_child() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  return native::SandboxProcess(pid, core::UniqueFd(pidfd));
}

// Whether `pid` is still our child, alive or a zombie: reaped children are not.
bool still_our_child(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

TEST(SandboxProcess, DestroyingItKillsAndReapsTheProcess) {
  pid_t pid = -1;
  {
    native::SandboxProcess process = sleeping_child();
    pid = process.pid();
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(process.running());
    EXPECT_TRUE(still_our_child(pid));
  }
  EXPECT_FALSE(still_our_child(pid));
  EXPECT_EQ(errno, ECHILD);
}

TEST(SandboxProcess, WaitReportsTheKillAndForgetsThePid) {
  native::SandboxProcess process = sleeping_child();
  ASSERT_EQ(process.kill(), 0);
  int status = process.wait();
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_FALSE(process.running());
  EXPECT_EQ(process.pid(), -1);
  process.kill_and_reap();  // nothing left to do, and no other process is hit
}

TEST(SandboxProcess, AMovedProcessIsOwnedOnceAndAnOverwrittenOneIsReaped) {
  native::SandboxProcess first = sleeping_child();
  pid_t first_pid = first.pid();
  native::SandboxProcess moved = std::move(first);
  EXPECT_EQ(moved.pid(), first_pid);
  EXPECT_FALSE(first.running());  // NOLINT(bugprone-use-after-move): the point of the test
  moved = sleeping_child();
  EXPECT_FALSE(still_our_child(first_pid));
  EXPECT_TRUE(moved.running());
}

}  // namespace
}  // namespace paddock::sandbox_process_test
