// Sessions: a sandbox that stays. Files and the work directory persist between commands;
// processes, timeouts and cancellations do not leak from one command into the next; file
// access from outside is confined beneath the work directory.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "runtime/session.h"
#include "support/harness.h"

namespace paddock::testing::session_test {
namespace {

using namespace std::chrono_literals;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TestSpec spec = spec_for({});
    spec.argv.clear();
    auto opened = backend_.open_session(shape_of(spec), plan_of(spec));
    ASSERT_TRUE(opened) << opened.error().message;
    session_ = std::move(*opened);
    ASSERT_NE(session_->resident(), nullptr) << "native sessions keep a resident";
  }

  runtime::RunResult shell(const std::string& script, double wall_seconds = 10) {
    runtime::ExecRequest request;
    request.argv = {"sh", "-c", script};
    request.wall_seconds = wall_seconds;
    RecordingObserver observer;
    auto result = session_->exec(request, observer);
    EXPECT_TRUE(result) << (result ? "" : result.error().message);
    return result ? *result : runtime::RunResult{};
  }

  // Starts `argv` as the session's resident; false, with a failure added, if it did not start.
  bool start_resident(std::vector<std::string> argv) {
    runtime::ExecRequest request;
    request.argv = std::move(argv);
    auto started = session_->resident()->start_resident(request);
    EXPECT_TRUE(started) << (started ? "" : started.error().message);
    return started.ok();
  }

  // `rounds` commands with a 1 s timeout, each of which must come back (run or timed out) within
  // 30 s; false, with the session closed, when one did not.
  bool commands_end_at_their_timeout(int rounds) {
    for (int round = 0; round < rounds; ++round) {
      auto command = std::async(std::launch::async, [this] { return shell("true", 1); });
      if (command.wait_for(30s) != std::future_status::ready) {
        ADD_FAILURE() << "round " << round << ": the command outlived its 1 s timeout by 30 s";
        session_->close();  // kills the sandbox, so that the command returns
        command.wait();
        return false;
      }
      runtime::RunResult result = command.get();
      EXPECT_TRUE(result.outcome == runtime::Outcome::kTimedOut || result.exit_code == 0)
          << "round " << round << ": " << result.stderr_data.data;
    }
    return true;
  }

  native::NativeBackend backend_;
  std::unique_ptr<runtime::Session> session_;
};

TEST_F(SessionTest, FilesPersistBetweenCommands) {
  EXPECT_EQ(shell("echo kept > a.txt; mkdir -p d; echo deep > d/b").exit_code, 0);
  runtime::RunResult second = shell("cat a.txt d/b; pwd");
  EXPECT_EQ(second.stdout_data.data, "kept\ndeep\n/work\n") << second.stderr_data.data;
}

TEST_F(SessionTest, NoProcessOutlivesItsCommand) {
  runtime::RunResult first = shell("sleep 100 >/dev/null 2>&1 & echo $!");
  ASSERT_EQ(first.exit_code, 0);
  std::string pid = first.stdout_data.data.substr(0, first.stdout_data.data.find('\n'));
  runtime::RunResult second = shell("test -e /proc/" + pid + " && echo alive || echo gone");
  EXPECT_EQ(second.stdout_data.data, "gone\n");
}

TEST_F(SessionTest, ATimeoutKillsTheCommandAndTheSessionGoesOn) {
  runtime::RunResult slow = shell("echo started; sleep 30", 0.5);
  EXPECT_EQ(slow.outcome, runtime::Outcome::kTimedOut);
  EXPECT_EQ(slow.stdout_data.data, "started\n");
  runtime::RunResult next = shell("echo still here");
  EXPECT_EQ(next.outcome, runtime::Outcome::kExited);
  EXPECT_EQ(next.stdout_data.data, "still here\n");
}

// A command killed at its timeout beside a resident (an install in a live session) is reported,
// and the session goes on: the sweep that kills it leaves its end to init's loop to report.
TEST_F(SessionTest, ACommandTimingOutBesideAResidentIsReportedAndTheSessionGoesOn) {
  ASSERT_TRUE(start_resident({"sleep", "1000"}));
  auto command = std::async(std::launch::async, [this] { return shell("sleep 30", 1); });
  if (command.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "the command outlived its 1 s timeout by 30 s";
    session_->close();  // kills the sandbox, so that the command returns
    command.wait();
    return;
  }
  EXPECT_EQ(command.get().outcome, runtime::Outcome::kTimedOut);
  EXPECT_EQ(shell("echo still here").stdout_data.data, "still here\n");
}

// A live session's interpreter (the resident) runs beside each command, as the sandbox user, and
// may stop every process it can signal, the command's among them before it has exec'd. The
// command must still end at its timeout, and the session go on: init must never wait on
// something the sandbox's own code can hold still.
TEST_F(SessionTest, AResidentStoppingEveryNewProcessCannotHoldACommandPastItsTimeout) {
  ASSERT_TRUE(start_resident({"sh", "-c", "while :; do kill -STOP -1 2>/dev/null; done"}));
  if (!commands_end_at_their_timeout(5)) return;
  session_->resident()->kill_resident();
  EXPECT_EQ(shell("echo still here").stdout_data.data, "still here\n");
}

// The same, when the resident has gone and left the stopper behind (a kernel's child that outlived
// it): init must not take "no resident" for "nothing else runs", neither for a command nor for the
// next resident's start.
TEST_F(SessionTest, AStopperLeftByAResidentThatExitedCannotHoldTheNextCommands) {
  // The stopper starts once the resident is gone and reaped ($$ is the resident's pid): started
  // at once, it could stop the resident before its exit, and a resident that is still there
  // rightly keeps the next one out (EBUSY), which is not this case.
  ASSERT_TRUE(start_resident({"sh", "-c",
                              "(while kill -0 $$ 2>/dev/null; do :; done; "
                              "while :; do kill -STOP -1 2>/dev/null; done) & exit 0"}));
  std::this_thread::sleep_for(300ms);  // the resident exits; its stopper runs on
  if (!commands_end_at_their_timeout(3)) return;
  runtime::ExecRequest idle;
  idle.argv = {"sleep", "1000"};
  auto next =
      std::async(std::launch::async, [&] { return session_->resident()->start_resident(idle); });
  if (next.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "the next resident's start was held for 30 s";
    session_->close();
    next.wait();
    return;
  }
  auto started = next.get();
  EXPECT_TRUE(started) << "the next resident did not start: " << started.error().message;
  session_->resident()->kill_resident();
  EXPECT_EQ(shell("echo still here").stdout_data.data, "still here\n");
}

// A resident that cannot start (a missing interpreter) is refused with the exec's own reason, not
// reported as started; the session then takes a command and a resident that can start.
TEST_F(SessionTest, AResidentThatCannotStartIsRefusedWithItsReason) {
  runtime::ExecRequest missing;
  missing.argv = {"/usr/bin/no-such-interpreter"};
  auto refused = session_->resident()->start_resident(missing);
  ASSERT_FALSE(refused) << "a resident whose exec failed was reported as started";
  EXPECT_EQ(refused.error().code, ENOENT) << refused.error().message;
  EXPECT_NE(refused.error().message.find("No such file"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(shell("echo still here").stdout_data.data, "still here\n");
  EXPECT_TRUE(start_resident({"sleep", "1000"}));
  session_->resident()->kill_resident();
}

// The same when the resident fails before its exec: here its working directory, which an earlier
// command made unreadable, is refused with the step that failed.
TEST_F(SessionTest, AResidentThatCannotEnterItsDirectoryIsRefusedWithTheStep) {
  ASSERT_EQ(shell("chmod 000 /work").exit_code, 0);
  runtime::ExecRequest idle;
  idle.argv = {"sleep", "1000"};
  auto refused = session_->resident()->start_resident(idle);
  ASSERT_FALSE(refused) << "a resident that never reached its exec was reported as started";
  EXPECT_EQ(refused.error().code, EACCES) << refused.error().message;
  EXPECT_NE(refused.error().message.find("entering the working directory"), std::string::npos)
      << refused.error().message;
}

TEST_F(SessionTest, CancellationKillsTheCommand) {
  runtime::ExecRequest request;
  request.argv = {"sleep", "30"};
  RecordingObserver observer;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    observer.token_.cancel();
  });
  auto result = session_->exec(request, observer);
  canceller.join();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, runtime::Outcome::kCancelled);
  EXPECT_EQ(shell("echo ok").stdout_data.data, "ok\n");
}

TEST_F(SessionTest, StdinAndExitCodesPerCommand) {
  int fd = open("/dev/null", O_RDONLY);
  char path[] = "/tmp/paddock-session-stdin-XXXXXX";
  int input = mkstemp(path);
  ASSERT_GE(input, 0);
  ASSERT_EQ(write(input, "typed\n", 6), 6);
  lseek(input, 0, SEEK_SET);
  runtime::ExecRequest request;
  request.argv = {"sh", "-c", "read line; echo got $line; exit 7"};
  request.stdin_fd = input;
  RecordingObserver observer;
  auto result = session_->exec(request, observer);
  close(input);
  close(fd);
  unlink(path);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stdout_data.data, "got typed\n");
  EXPECT_EQ(result->exit_code, 7);
}

TEST_F(SessionTest, WrittenFilesBelongToTheSandboxUser) {
  auto wrote = session_->write_file("in/data.txt", "from outside\n");
  ASSERT_TRUE(wrote) << wrote.error().message;
  runtime::RunResult seen =
      shell("cat in/data.txt; stat -c %u in/data.txt; echo more >> in/data.txt");
  EXPECT_EQ(seen.stdout_data.data, "from outside\n1000\n") << seen.stderr_data.data;
  auto back = session_->read_file("in/data.txt", 1 << 20);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->data, "from outside\nmore\n");
  EXPECT_EQ(back->size, 18u);
  auto partial = session_->read_file("in/data.txt", 4);
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->data, "from");
  EXPECT_EQ(partial->size, 18u);
}

TEST_F(SessionTest, ListsFilesWithTypesAndSizes) {
  shell("echo 12345 > five; mkdir dir; ln -s five link; mkfifo pipe");
  auto listed = session_->list_files("", 100);
  ASSERT_TRUE(listed) << listed.error().message;
  std::map<std::string, std::pair<std::string, std::uint64_t>> found;
  for (const auto& entry : *listed) found[entry.name] = {entry.type, entry.size};
  EXPECT_EQ(found["five"], std::make_pair(std::string("file"), std::uint64_t{6}));
  EXPECT_EQ(found["dir"].first, "directory");
  EXPECT_EQ(found["link"].first, "symlink");
  EXPECT_EQ(found["pipe"].first, "other");
  EXPECT_FALSE(session_->list_files("five", 100));
}

TEST_F(SessionTest, PathsAreConfinedToTheWorkDirectory) {
  shell(
      "ln -s /etc etc_link; ln -s ../.. up; ln -s /proc/1/root root_link; mkfifo fifo; "
      "echo inside > real; ln -s real alias");
  EXPECT_FALSE(session_->read_file("../etc/passwd", 100));
  EXPECT_FALSE(session_->read_file("/etc/passwd", 100));
  EXPECT_FALSE(session_->read_file("etc_link/passwd", 100));
  EXPECT_FALSE(session_->read_file("up/etc/passwd", 100));
  EXPECT_FALSE(session_->read_file("root_link/etc/passwd", 100));
  EXPECT_FALSE(session_->read_file("fifo", 100));  // refused, not a hang
  EXPECT_FALSE(session_->list_files("etc_link", 100));
  EXPECT_FALSE(session_->write_file("etc_link/evil", "x"));
  EXPECT_FALSE(session_->write_file("up/evil", "x"));
  EXPECT_FALSE(session_->write_file("alias", "x"));  // writing follows no symlink at all
  auto alias = session_->read_file("alias", 100);    // reading follows one that stays inside
  ASSERT_TRUE(alias) << alias.error().message;
  EXPECT_EQ(alias->data, "inside\n");
  EXPECT_EQ(shell("ls /etc | grep -c evil; ls / | grep -c evil").stdout_data.data, "0\n0\n");
}

TEST_F(SessionTest, CloseKillsACommandInFlightAndLeavesNothing) {
  RecordingObserver observer;
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    session_->close();
  });
  runtime::ExecRequest request;
  request.argv = {"sleep", "30"};
  auto start = std::chrono::steady_clock::now();
  auto result = session_->exec(request, observer);
  closer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_GT(observer.host_pid, 0);
  EXPECT_NE(kill(observer.host_pid, 0), 0);  // init is gone (and reaped)
  runtime::ExecRequest after;
  after.argv = {"true"};
  EXPECT_FALSE(session_->exec(after, observer));
  EXPECT_FALSE(session_->read_file("x", 10));
}

TEST_F(SessionTest, UsageMeasuresTheWorkDirectory) {
  auto fresh = session_->usage();
  ASSERT_TRUE(fresh) << fresh.error().message;
  EXPECT_EQ(fresh->processes, 0u);
  EXPECT_LT(fresh->disk_bytes, 1u << 20);
  ASSERT_TRUE(session_->write_file("big", std::string(3'000'000, 'x')));
  auto written = session_->usage();
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_GE(written->disk_bytes, fresh->disk_bytes + 2'900'000);
  EXPECT_EQ(shell("head -c 3000000 /dev/zero > more").exit_code, 0);
  auto more = session_->usage();
  ASSERT_TRUE(more) << more.error().message;
  EXPECT_GE(more->disk_bytes, written->disk_bytes + 2'900'000);
  EXPECT_EQ(shell("rm big more").exit_code, 0);
  auto removed = session_->usage();
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_LT(removed->disk_bytes, 1u << 20);
}

TEST_F(SessionTest, UsageAnswersWhileACommandRunsAndCountsItsProcesses) {
  RecordingObserver observer;
  std::thread command([&] {
    runtime::ExecRequest request;
    request.argv = {"sh", "-c", "sleep 5 & sleep 5 & wait"};
    auto result = session_->exec(request, observer);
    EXPECT_TRUE(result) << result.error().message;
  });
  // Polled until the command's shell and both sleeps are seen; usage() waiting for the command
  // would only answer after it ended, with 0.
  std::uint32_t most = 0;
  auto slowest = std::chrono::steady_clock::duration::zero();
  auto deadline = std::chrono::steady_clock::now() + 4s;
  while (most < 3 && std::chrono::steady_clock::now() < deadline) {
    auto asked = std::chrono::steady_clock::now();
    auto usage = session_->usage();
    slowest = std::max(slowest, std::chrono::steady_clock::now() - asked);
    ASSERT_TRUE(usage) << usage.error().message;
    most = std::max(most, usage->processes);
    std::this_thread::sleep_for(50ms);
  }
  command.join();
  EXPECT_GE(most, 3u);
  EXPECT_LT(slowest, 1s);
  auto after = session_->usage();
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->processes, 0u);
}

TEST_F(SessionTest, UsageOfAClosedOrEndedSessionIsAnError) {
  RecordingObserver observer;
  runtime::ExecRequest request;
  request.argv = {"true"};
  ASSERT_TRUE(session_->exec(request, observer));
  ASSERT_GT(observer.host_pid, 0);
  ASSERT_EQ(kill(observer.host_pid, SIGKILL), 0) << strerror(errno);  // init: the session ends
  auto start = std::chrono::steady_clock::now();
  core::Result<runtime::SessionUsage> ended = runtime::SessionUsage{};
  while ((ended = session_->usage()) && std::chrono::steady_clock::now() - start < 5s) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_FALSE(ended);
  EXPECT_NE(ended.error().message.find("has ended"), std::string::npos) << ended.error().message;
  session_->close();
  auto closed = session_->usage();
  ASSERT_FALSE(closed);
  EXPECT_NE(closed.error().message.find("closed"), std::string::npos) << closed.error().message;
}

}  // namespace
}  // namespace paddock::testing::session_test
