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
#include "support/process_memory.h"

namespace paddock::testing::display_flood_test {
namespace {

using json = nlohmann::json;

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

// Enough that the list the server kept before would have grown by well over the bound below:
// about 260 bytes a figure the server sees, and the kernel's iopub socket drops only what the
// server is too slow to take (about a third here), so well over 20,000 reach it. A count, not a
// time: under the load of CI's side-by-side passes, 60 s of flooding took the cell past its
// 300 s timeout while the kernel drained what it had queued.
constexpr int kFigures = 40'000;
constexpr long kBoundKib = 3 * 1024;

TEST(DisplayFlood, ALiveCellsFigureFloodKeepsTheServersMemoryBounded) {
  McpProcess server;
  json created;
  std::string session = server.open_session(1, {{"live", true}}, &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  // A warm-up cell, so that what the first cell costs is in the baseline.
  server.call(2, "execute_code", {{"session_id", session}, {"code", "print(1)"}});
  json warmed = server.wait_for(2);
  ASSERT_FALSE(McpProcess::is_tool_error(warmed)) << warmed.dump();
  long before = resident_kib(server.pid());

  PeakSampler sampler(server.pid());
  std::string flood =
      "png = "
      "'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5"
      "ErkJggg=='\n"
      "publish = get_ipython().display_pub.publish\n"
      "n = 0\n"
      "while n < " +
      std::to_string(kFigures) +
      ":\n"
      "    for _ in range(100):\n"
      "        publish({'image/png': png})\n"
      "    n += 100\n"
      "print(n)\n";
  server.call(3, "execute_code", {{"session_id", session}, {"code", flood}, {"timeout", 300}});
  json flooded = server.wait_for(3, std::chrono::seconds(400));
  long peak = sampler.finish();
  ASSERT_FALSE(McpProcess::is_tool_error(flooded)) << flooded.dump().substr(0, 2000);
  const json& structured = flooded["result"]["structuredContent"];
  // The cell ended by itself (a timeout is a tool error), so every figure was sent. Not read from
  // the cell's closing print: the high-water mark that drops figures can drop that stream too.
  long displays = kFigures;
  long omitted = structured.value("artifacts_omitted_count", 0L);
  std::cout << "figures sent: " << displays << ", seen and left out: " << omitted
            << "; server RSS before: " << before << " KiB, peak during the flood: " << peak
            << " KiB (+" << (peak - before) / 1024 << " MiB); result " << flooded.dump().size()
            << " bytes\n";
  // Every figure past the cap that the server saw is counted, and only the first few named.
  EXPECT_EQ(structured["artifacts"].size(), 20u);
  EXPECT_GT(omitted, 10000) << "too few figures reached the server to tell anything";
  EXPECT_LE(omitted, displays - 20);
  EXPECT_LE(structured["artifacts_omitted"].size(), 200u);
  EXPECT_NE(McpProcess::text_of(flooded).find("more files left out, not named"), std::string::npos)
      << McpProcess::text_of(flooded).substr(0, 3000);
  EXPECT_LT(flooded.dump().size(), 1u << 20);
  // Bounded: the growth does not follow the number of figures.
  EXPECT_LT(peak - before, kBoundKib) << "from " << before << " KiB to " << peak << " KiB";
}

}  // namespace
}  // namespace paddock::testing::display_flood_test
