// What a sandbox shares with the server's user and with every other sandbox, and the cap each
// sandbox reaches first (runtime/shared_budgets.h): inotify instances and watches, the
// other ucounts limits, message-queue bytes and queued signals, and ptys. Each test takes
// everything it can from inside a real sandbox, and looks at the host while the sandbox still
// holds it.

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "runtime/shared_budgets.h"
#include "support/harness.h"

namespace paddock::testing::shared_budgets_test {
namespace {

int ucount_limit(const std::string& file) {
  for (const auto& limit : runtime::kSandboxUcountLimits) {
    if (file == limit.file) return limit.value;
  }
  ADD_FAILURE() << "no limit named " << file;
  return -1;
}

// What the probe reported ("<what> <count> errno=<error>"), and what `on_report` saw of the
// host when the report came: the probe holds what it took for a while after reporting.
struct ProbeReport {
  std::string what;
  long count = -1;
  int error = -1;
};

class HoldingObserver : public RecordingObserver {
 public:
  explicit HoldingObserver(std::function<void()> on_report) : on_report_(std::move(on_report)) {}
  void on_output(runtime::StreamId stream, std::string_view chunk) override {
    RecordingObserver::on_output(stream, chunk);
    if (stream != runtime::StreamId::kStdout) return;
    std::lock_guard lock(mutex_);
    text_ += chunk;
    if (report_ || text_.find('\n') == std::string::npos) return;
    std::istringstream line(text_.substr(0, text_.find('\n')));
    ProbeReport report;
    std::string error;
    line >> report.what >> report.count >> error;
    if (error.starts_with("errno=")) report.error = std::stoi(error.substr(6));
    report_ = report;
    on_report_();
  }
  [[nodiscard]] std::optional<ProbeReport> report() {
    std::lock_guard lock(mutex_);
    return report_;
  }

 private:
  std::function<void()> on_report_;
  std::mutex mutex_;
  std::string text_;
  std::optional<ProbeReport> report_;
};

long host_open_ptys() {
  std::ifstream in("/proc/sys/kernel/pty/nr");
  long count = -1;
  in >> count;
  return count;
}

TEST(SharedBudgets, ASandboxRunsOutOfInotifyInstancesBeforeItsUserDoes) {
  // The host side of the user that owns the sandbox's user namespace: this process's.
  int host_error = -1;
  HoldingObserver observer([&] {
    int fd = inotify_init1(IN_CLOEXEC);
    host_error = fd < 0 ? errno : 0;
    if (fd >= 0) close(fd);
  });
  runtime::RunResult result = run_ok(probe_spec({"inotify-instances", "100000", "3"}), observer);
  auto report = observer.report();
  ASSERT_TRUE(report) << result.stdout_data.data << result.stderr_data.data;
  EXPECT_EQ(report->what, "inotify-instances");
  EXPECT_EQ(report->count, ucount_limit("max_inotify_instances"));
  EXPECT_EQ(report->error, EMFILE);
  EXPECT_EQ(host_error, 0) << "the host user could not make an inotify instance while the "
                              "sandbox held "
                           << report->count << ": " << std::strerror(host_error);
}

TEST(SharedBudgets, ASandboxRunsOutOfInotifyWatchesAtItsOwnLimit) {
  int limit = ucount_limit("max_inotify_watches");
  HoldingObserver observer([] {});
  TestSpec spec = probe_spec({"inotify-watches", std::to_string(limit + 16), "0"});
  runtime::RunResult result = run_ok(spec, observer);
  auto report = observer.report();
  ASSERT_TRUE(report) << result.stdout_data.data << result.stderr_data.data;
  EXPECT_EQ(report->what, "inotify-watches");
  EXPECT_EQ(report->count, limit);
  EXPECT_EQ(report->error, ENOSPC);
}

TEST(SharedBudgets, TheSandboxsOwnLimitsAreTheOnesNamed) {
  runtime::RunResult result =
      run_ok(shell_spec("cd /proc/sys/user && for f in *; do echo \"$f $(cat $f)\"; done; "
                        "grep -E '^Max (msgqueue size|pending signals)' /proc/self/limits"));
  std::istringstream lines(result.stdout_data.data);
  std::string line;
  std::size_t checked = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    long value = -1;
    fields >> name;
    if (name == "Max") {
      std::string what = line.substr(0, 26);
      std::istringstream numbers(line.substr(26));
      long soft = -1, hard = -1;
      numbers >> soft >> hard;
      unsigned long expected = line.find("msgqueue") != std::string::npos
                                   ? runtime::kSandboxMessageQueueBytes
                                   : runtime::kSandboxPendingSignals;
      EXPECT_EQ(soft, static_cast<long>(expected)) << line;
      EXPECT_EQ(hard, static_cast<long>(expected)) << line;
      ++checked;
      continue;
    }
    fields >> value;
    bool named = false;
    for (const auto& limit : runtime::kSandboxUcountLimits) {
      if (name != limit.file) continue;
      named = true;
      EXPECT_EQ(value, limit.value) << name;
    }
    // A limit the kernel added after shared_budgets.h was written must get a value there.
    EXPECT_TRUE(named) << name << " = " << value << " has no sandbox value";
    ++checked;
  }
  EXPECT_EQ(checked, std::size(runtime::kSandboxUcountLimits) + 2) << result.stdout_data.data;
}

TEST(SharedBudgets, ASandboxGetsNoMorePtysThanItsCap) {
  long before = host_open_ptys();
  long during = -1;
  HoldingObserver observer([&] { during = host_open_ptys(); });
  TestSpec spec = probe_spec({"ptys", "100000", "2"});
  // Enough descriptors to reach the host's whole pool: the cap, not RLIMIT_NOFILE, must stop it.
  spec.limits.open_files = 8192;
  runtime::RunResult result = run_ok(spec, observer);
  auto report = observer.report();
  ASSERT_TRUE(report) << result.stdout_data.data << result.stderr_data.data;
  EXPECT_EQ(report->what, "ptys");
  EXPECT_EQ(report->count, runtime::kSandboxPtys);
  EXPECT_EQ(report->error, ENOSPC);
  // Other sandboxes and containers may open ptys meanwhile; this one added no more than its cap.
  EXPECT_LE(during - before, runtime::kSandboxPtys + 8)
      << "before " << before << ", during " << during;
}

}  // namespace
}  // namespace paddock::testing::shared_budgets_test
