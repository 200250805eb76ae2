// Timeouts, output caps, limits and cancellation: nothing outlives or overwhelms paddock.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "support/harness.h"

namespace paddock::testing::supervision_test {
namespace {

TEST(Supervision, TimeoutKillsEscapedAndStoppedDescendants) {
  // A unique marker in every descendant's command line, to find survivors on the host.
  const std::string marker = "98" + std::to_string(getpid()) + "7";
  std::string script = "setsid sleep " + marker +
                       " & "  // new session
                       "(sleep " +
                       marker +
                       " &) ; "  // double fork: orphan
                       "sh -c 'sleep " +
                       marker +
                       "' & kill -STOP $! ; "  // stopped
                       "trap '' TERM HUP INT; sleep " +
                       marker;  // ignores polite signals
  TestSpec spec = shell_spec(script);
  spec.limits.wall_seconds = 1;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kTimedOut);
  EXPECT_TRUE(result.timed_out());
  EXPECT_EQ(runtime::cli_exit_status(result), 124);
  EXPECT_GE(result.duration_ms, 1000);
  EXPECT_LT(result.duration_ms, 10000);
  EXPECT_TRUE(processes_with("sleep " + marker).empty());
}

// A step of init's that fails while it builds the sandbox is reported with its reason, whichever
// channel init holds then (with no network, init is handed a new one once its namespace is made).
TEST(Supervision, AFailureOfInitsSetupIsReportedWithItsReason) {
  for (runtime::NetworkMode network : {runtime::NetworkMode::kNone, runtime::NetworkMode::kHost}) {
    TestSpec spec = spec_for({"true"});
    spec.network = network;
    spec.image_layers = {"/nonexistent-paddock-layer"};  // init opens it first
    native::NativeBackend backend;
    RecordingObserver observer;
    auto result = backend.run(shape_of(spec), plan_of(spec), observer);
    ASSERT_FALSE(result.ok()) << runtime::to_string(network);
    EXPECT_NE(result.error().message.find("opening image layer /nonexistent-paddock-layer"),
              std::string::npos)
        << runtime::to_string(network) << ": " << result.error().message;
    EXPECT_EQ(result.error().code, ENOENT) << runtime::to_string(network);
  }
}

TEST(Supervision, OutputFloodIsCappedAndEndsAtTheTimeout) {
  TestSpec spec = spec_for({"yes", "flood"});
  spec.limits.wall_seconds = 1;
  spec.limits.output_bytes = 64 * 1024;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kTimedOut);
  EXPECT_EQ(result.stdout_data.data.size(), 64u * 1024);
  EXPECT_TRUE(result.stdout_data.truncated);
  EXPECT_GT(result.stdout_data.total_bytes, 64u * 1024);
}

TEST(Supervision, LargeOutputIsDrainedSoTheProgramFinishes) {
  // 4 MiB on each stream, far past the pipe buffers and the cap: the program must not block.
  TestSpec spec =
      shell_spec("head -c 4194304 /dev/zero; head -c 4194304 /dev/zero >&2; echo done >&2");
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kExited);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.stdout_data.data.size(), 1u << 20);
  EXPECT_TRUE(result.stdout_data.truncated);
  EXPECT_TRUE(result.stderr_data.truncated);
  EXPECT_EQ(result.stdout_data.total_bytes, 4u << 20);
  EXPECT_EQ(result.stderr_data.total_bytes, (4u << 20) + 5);
  // The end is kept, where a program's last words are.
  EXPECT_EQ(result.stderr_data.data.substr(result.stderr_data.data.size() - 5), "done\n");
}

TEST(Supervision, ForkBombIsContainedByThePidLimit) {
  // The wall timeout would end an unlimited bomb too, so the run ending proves nothing: a watcher
  // counts the sandbox's processes while the bomb grows, and the bomb must hear EAGAIN. Its
  // processes stay once refused (a bomb whose processes exit and retry churns faster than /proc
  // can be listed), and it stops at 2^8 processes, so that without a limit it fails this test
  // without hurting the host.
  TestSpec spec = spec_for({"python3", "-c", R"(
import errno, os, time
main = os.getpid()
watcher = os.fork()
if watcher == 0:
    end, peak = time.time() + 3, 0
    while time.time() < end:
        peak = max(peak, sum(1 for d in os.listdir('/proc') if d.isdigit()))
        time.sleep(0.01)
    print('peak', peak, flush=True)
    os._exit(0)
time.sleep(0.3)
for depth in range(8):
    try:
        os.fork()  # parent and child both go on
    except OSError as e:
        print('EAGAIN' if e.errno == errno.EAGAIN else e, flush=True)
        break
if os.getpid() == main:
    os.waitpid(watcher, 0)
else:
    time.sleep(10)
)"});
  spec.limits.pids = 32;
  spec.limits.wall_seconds = 10;
  runtime::RunResult result = run_ok(spec);
  const std::string& out = result.stdout_data.data;
  auto at = out.find("peak ");
  ASSERT_NE(at, std::string::npos)
      << "the watcher never reported: " << out << result.stderr_data.data;
  const int peak = std::stoi(out.substr(at + 5));
  EXPECT_LE(peak, 32) << "the bomb grew past the pid limit";
  EXPECT_GE(peak, 24) << "the bomb hardly grew, so this measured nothing";
  EXPECT_NE(out.find("EAGAIN"), std::string::npos) << "no fork was refused: " << out;
  EXPECT_LT(result.duration_ms, 15000);
}

TEST(Supervision, PidLimitRefusesTheProcessBeyondIt) {
  TestSpec spec =
      spec_for({"python3", "-c",
                "import os\nn = 0\ntry:\n    while True:\n"
                "        if os.fork() == 0:\n            os.pause()\n"
                "        n += 1\nexcept OSError as e:\n    print('refused after', n)\n"});
  spec.limits.pids = 16;
  runtime::RunResult result = run_ok(spec);
  // paddock-init's relay, the sandbox's init and python count too: 16 - 3 = 13 children at most.
  EXPECT_EQ(result.stdout_data.data, "refused after 13\n") << result.stderr_data.data;
}

TEST(Supervision, HugeArgumentListIsAClearResult) {
  std::vector<std::string> argv = {"/bin/true"};
  for (int i = 0; i < 4000; ++i) argv.push_back(std::string(1000, 'a'));  // 4 MB
  runtime::RunResult result = run_ok(spec_for(argv));
  EXPECT_EQ(result.outcome, runtime::Outcome::kExecFailed);
  EXPECT_EQ(result.exit_code, 126);
  EXPECT_NE(result.exec_error.find("too long"), std::string::npos) << result.exec_error;
}

TEST(Supervision, CommandNotFoundIsAClearResult) {
  runtime::RunResult result = run_ok(spec_for({"no-such-program-paddock"}));
  EXPECT_EQ(result.outcome, runtime::Outcome::kExecFailed);
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_NE(result.exec_error.find("no-such-program-paddock"), std::string::npos);
}

TEST(Supervision, MemoryLimitStopsLargeAllocations) {
  TestSpec spec = spec_for({"python3", "-c",
                            "try:\n    b = bytearray(600 * 1024 * 1024)\n    print('ALLOCATED')\n"
                            "except MemoryError:\n    print('MemoryError')\n"});
  spec.limits.memory_bytes = 256ull << 20;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "MemoryError\n") << result.stderr_data.data;
  spec.limits.memory_bytes = 1ull << 30;
  EXPECT_EQ(run_ok(spec).stdout_data.data, "ALLOCATED\n");
}

TEST(Supervision, CpuTimeLimitKillsBusyLoops) {
  TestSpec spec = spec_for({"python3", "-c", "while True: pass"});
  spec.limits.cpu_seconds = 1;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kSignaled);
  EXPECT_TRUE(result.signal == SIGXCPU || result.signal == SIGKILL) << result.signal;
  // The kernel holds RLIMIT_CPU against tick-sampled time, while cpu_ms is the exact runtime
  // (the cgroup's): on a contended machine the ticks overcharge a loop that keeps being
  // preempted (CI's idle-class pass measured 882 ms at the signal). What matters is that the
  // loop's time is reported, near the limit.
  EXPECT_GE(result.cpu_ms, 700);
  EXPECT_LT(result.cpu_ms, 5000);
}

TEST(Supervision, FileSizeLimitStopsBigWrites) {
  TestSpec spec = shell_spec("head -c 2000000 /dev/zero > /work/big; echo $?; wc -c < /work/big");
  spec.limits.file_size_bytes = 1000000;
  runtime::RunResult result = run_ok(spec);
  EXPECT_NE(result.stdout_data.data.find("1000000"), std::string::npos) << result.stdout_data.data;
}

TEST(Supervision, TmpfsSizesAreEnforced) {
  TestSpec spec = shell_spec(
      "head -c 3000000 /dev/zero > /tmp/f 2>/dev/null || echo TMP_FULL; "
      "head -c 3000000 /dev/zero > /work/f 2>/dev/null || echo WORK_FULL");
  spec.limits.tmp_bytes = 1 << 20;
  spec.limits.work_bytes = 1 << 20;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "TMP_FULL\nWORK_FULL\n");
}

TEST(Supervision, StdinComesFromAFile) {
  std::string path = ::testing::TempDir() + "/paddock-stdin-" + std::to_string(getpid()) + ".txt";
  FILE* file = fopen(path.c_str(), "w");
  fputs("line one\nline two\n", file);
  fclose(file);
  TestSpec spec = spec_for({"wc", "-l"});
  spec.stdin_path = path;
  EXPECT_EQ(run_ok(spec).stdout_data.data, "2\n");
  std::remove(path.c_str());
  spec.stdin_path.reset();
  EXPECT_EQ(run_ok(spec).stdout_data.data, "0\n");  // default stdin is empty
}

TEST(Supervision, KilledBySignalReports128PlusN) {
  runtime::RunResult result = run_ok(shell_spec("kill -SEGV $$"));
  EXPECT_EQ(result.outcome, runtime::Outcome::kSignaled);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_EQ(runtime::cli_exit_status(result), 128 + SIGSEGV);
}

TEST(Supervision, CancellationKillsTheSandbox) {
  const std::string marker = "97" + std::to_string(getpid()) + "3";
  RecordingObserver observer;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    observer.token_.cancel();
  });
  runtime::RunResult result = run_ok(shell_spec("sleep " + marker), observer);
  canceller.join();
  EXPECT_EQ(result.outcome, runtime::Outcome::kCancelled);
  EXPECT_LT(result.duration_ms, 5000);
  EXPECT_TRUE(processes_with("sleep " + marker).empty());
}

TEST(Supervision, ConcurrentRunsDoNotDisturbEachOther) {
  std::vector<std::thread> threads;
  std::vector<runtime::RunResult> results(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      results[static_cast<std::size_t>(i)] =
          run_ok(shell_spec("sleep 0.3; echo " + std::to_string(i)));
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(results[static_cast<std::size_t>(i)].stdout_data.data, std::to_string(i) + "\n");
  }
}

}  // namespace
}  // namespace paddock::testing::supervision_test
