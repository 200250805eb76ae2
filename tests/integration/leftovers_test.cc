// After any run, nothing of the sandbox is left on the host: no process, mount, fd or file.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "support/harness.h"

namespace paddock::testing::leftovers_test {
namespace {

std::vector<std::string> children_of_this_process() {
  std::vector<std::string> children;
  for (const auto& task : directory_entries("/proc/self/task")) {
    std::string list = read_file("/proc/self/task/" + task + "/children");
    if (!list.empty()) children.push_back(list);
  }
  return children;
}

TEST(Leftovers, NothingRemainsAfterTwoHundredRuns) {
  const int fds_before = open_fd_count();
  const std::string mounts_before = mounts_but_other_jobs();
  const auto tmp_before = own_entries_of_tmp();

  int failures = 0;
  for (int i = 0; i < 200; ++i) {
    TestSpec spec = i % 4 == 3 ? shell_spec("sleep 5 & sleep 5 & exit 1") : spec_for({"true"});
    if (i % 4 == 3) spec.limits.wall_seconds = 0.05;  // a quarter end by timeout, children alive
    runtime::RunResult result = run_ok(spec);
    bool expected = result.outcome == runtime::Outcome::kExited ||
                    result.outcome == runtime::Outcome::kTimedOut;
    EXPECT_TRUE(expected) << "run " << i << ": " << runtime::to_string(result.outcome) << " "
                          << result.signal << " " << result.exec_error << result.stderr_data.data;
    failures += expected ? 0 : 1;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(open_fd_count(), fds_before);
  EXPECT_EQ(mounts_but_other_jobs(), mounts_before);
  EXPECT_EQ(own_entries_of_tmp(), tmp_before);
  EXPECT_TRUE(children_of_this_process().empty());
}

TEST(Leftovers, FailedSetupLeavesNothingEither) {
  const int fds_before = open_fd_count();
  TestSpec spec = spec_for({"true"});
  spec.cwd = "/does/not/exist";
  for (int i = 0; i < 20; ++i) {
    RecordingObserver observer;
    native::NativeBackend backend;
    auto result = backend.run(shape_of(spec), plan_of(spec), observer);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find("/does/not/exist"), std::string::npos);
  }
  EXPECT_EQ(open_fd_count(), fds_before);
  EXPECT_TRUE(children_of_this_process().empty());
}

// Most of a run's plan is made after its child exists, while the child execs paddock-init: a plan
// refused then (here a read-write bind of a folder that is not the caller's) is still a one-line
// error, and the child waiting for its plan is killed and reaped with every fd of the run.
TEST(Leftovers, APlanRefusedAfterTheCloneLeavesNothing) {
  const int fds_before = open_fd_count();
  TestSpec spec = spec_for({"true"});
  spec.binds = {{"/tmp", "/mnt/out", true}};
  for (int i = 0; i < 20; ++i) {
    RecordingObserver observer;
    native::NativeBackend backend;
    auto result = backend.run(shape_of(spec), plan_of(spec), observer);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find("owned by"), std::string::npos) << result.error().message;
    EXPECT_EQ(observer.host_pid, -1) << "the sandbox was reported started";
  }
  EXPECT_EQ(open_fd_count(), fds_before);
  EXPECT_TRUE(children_of_this_process().empty());
}

TEST(Leftovers, KilledPaddockTakesItsSandboxAlong) {
  const std::string marker = "96" + std::to_string(getpid()) + "1";
  // Start paddock, then SIGKILL it: PR_SET_PDEATHSIG must take the whole sandbox down.
  pid_t pid = fork();
  if (pid == 0) {
    // The marker reaches only the sleeps' command lines, through the environment.
    execl(paddock_binary().c_str(), "paddock", "run", "--env", ("M=" + marker).c_str(), "--", "sh",
          "-c", "sleep $M & sleep $M", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 100 && processes_with("sleep " + marker).size() < 2; ++i) usleep(20000);
  ASSERT_EQ(processes_with("sleep " + marker).size(), 2u);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  for (int i = 0; i < 100 && !processes_with("sleep " + marker).empty(); ++i) usleep(20000);
  EXPECT_TRUE(processes_with("sleep " + marker).empty());
}

TEST(Leftovers, TerminatedPaddockKillsItsSandboxAndSaysSo) {
  const std::string marker = "95" + std::to_string(getpid()) + "2";
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    execl(paddock_binary().c_str(), "paddock", "run", "--env", ("M=" + marker).c_str(), "--", "sh",
          "-c", "sleep $M", nullptr);
    _exit(127);
  }
  close(err[1]);
  for (int i = 0; i < 100 && processes_with("sleep " + marker).empty(); ++i) usleep(20000);
  ASSERT_EQ(processes_with("sleep " + marker).size(), 1u);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  char buffer[512] = {};
  ssize_t got = read(err[0], buffer, sizeof buffer - 1);
  close(err[0]);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_NE(
      std::string(buffer, static_cast<std::size_t>(std::max<ssize_t>(got, 0))).find("cancelled"),
      std::string::npos);
  EXPECT_TRUE(processes_with("sleep " + marker).empty());
}

}  // namespace
}  // namespace paddock::testing::leftovers_test
