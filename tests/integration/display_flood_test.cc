// A live cell that floods display_data with figures past the per-call cap must not grow the
// server's memory with every one: the list of what was left out is capped, and the rest are
// counted (issue 36, item 8; before, 624,112 entries in 120 s took the server from 14 MiB to
// 228 MiB).

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing {
namespace {

using json = nlohmann::json;

// The resident memory of `pid` in KiB, from /proc/PID/status.
long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The most `pid` held while it lives on, sampled every 50 ms until stopped.
class PeakSampler {
 public:
  explicit PeakSampler(pid_t pid)
      : thread_([this, pid] {
          while (!stop_) {
            peak_ = std::max(peak_.load(), resident_kib(pid));
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  long finish() {
    stop_ = true;
    thread_.join();
    return peak_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<long> peak_{0};
  std::thread thread_;
};

constexpr int kFloodSeconds = 30;

TEST(DisplayFlood, ALiveCellsFigureFloodKeepsTheServersMemoryBounded) {
  McpProcess server;
  server.call(1, "create_session", {{"live", true}});
  json created = server.wait_for(1, std::chrono::seconds(120));
  std::string session = created["result"]["structuredContent"].value("session_id", "");
  ASSERT_FALSE(session.empty()) << created.dump();
  // A warm-up cell, so that what the first cell costs is in the baseline.
  server.call(2, "execute_code", {{"session_id", session}, {"code", "print(1)"}});
  ASSERT_FALSE(server.wait_for(2)["result"].value("isError", true));
  long before = resident_kib(server.pid());

  PeakSampler sampler(server.pid());
  std::string flood =
      "import time\n"
      "from IPython.display import display\n"
      "png = "
      "'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5"
      "ErkJggg=='\n"
      "n = 0\n"
      "end = time.time() + " +
      std::to_string(kFloodSeconds) +
      "\n"
      "while time.time() < end:\n"
      "    display({'image/png': png}, raw=True)\n"
      "    n += 1\n"
      "print(n)\n";
  server.call(3, "execute_code",
              {{"session_id", session}, {"code", flood}, {"timeout_seconds", 120}});
  json flooded = server.wait_for(3, std::chrono::seconds(240));
  long peak = sampler.finish();
  const json& structured = flooded["result"]["structuredContent"];
  long displays = std::stol("0" + structured.value("stdout", ""));
  std::cout << "displays: " << displays << ", server RSS before: " << before / 1024
            << " MiB, peak during the flood: " << peak / 1024 << " MiB, result "
            << flooded.dump().size() << " bytes\n";
  ASSERT_GT(displays, 1000) << flooded.dump().substr(0, 2000);
  // Every figure past the cap is counted, and only the first few are named.
  EXPECT_EQ(structured["artifacts"].size(), 20u);
  EXPECT_EQ(structured.value("artifacts_omitted_count", 0L), displays - 20);
  EXPECT_LE(structured["artifacts_omitted"].size(), 200u);
  EXPECT_LT(flooded.dump().size(), 1u << 20);
  // Bounded: the growth does not follow the number of figures (about 360 bytes each before).
  EXPECT_LT(peak - before, 24L * 1024) << "from " << before << " KiB to " << peak << " KiB";
}

}  // namespace
}  // namespace paddock::testing
