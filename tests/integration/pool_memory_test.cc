// The memory budget of what waits for calls (--pool-memory, app/pool_memory.h), through a real
// `paddock mcp`: a budget below one interpreter keeps none of that kind and its calls run cold
// and right; get_session says what the pools hold, measured, within the budget; and a ready
// kernel killed while it waits is not handed out, the next session runs, and the pool refills.
// How the pools share the budget and give way, least recently wanted first, is tested on the
// pool class with sandboxes of known sizes (tests/unit/app_pool_memory_test.cc).

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/warm_server.h"

namespace paddock::testing::pool_memory_test {
namespace {

using json = nlohmann::json;
constexpr std::uint64_t kMiB = 1024 * 1024;

json call(WarmServer& server, int id, const std::string& tool, const json& arguments) {
  server.mcp().call(id, tool, arguments);
  json answer = server.mcp().wait_for(id);
  EXPECT_FALSE(answer["result"].value("isError", true)) << answer.dump();
  return answer["result"]["structuredContent"];
}

// The kernels' processes among the server's sandboxes, each with its sandbox's init.
std::vector<std::pair<pid_t, pid_t>> kernels_of(pid_t server) {
  std::vector<std::pair<pid_t, pid_t>> found;
  for (pid_t init : sandboxes_of(server)) {
    for (pid_t pid : process_tree(init)) {
      // "python3 -m ipykernel_launcher -f ...": the bridge beside it names it in its source.
      std::string command = read_file("/proc/" + std::to_string(pid) + "/cmdline");
      if (command.find(std::string("\0-m\0ipykernel", 13)) != std::string::npos) {
        found.emplace_back(init, pid);
      }
    }
  }
  return found;
}

TEST(PoolMemory, ABudgetBelowOneInterpreterKeepsNoneAndItsCallsRunColdAndRight) {
  // The control: with the default budget, the calls after the first run warm.
  for (const char* budget : {"512m", "1m"}) {
    WarmServer server({"--warm", "1", "--pool-memory", budget});
    for (int i = 0; i < 3; ++i) {
      json result = server.run({{"code", "print(6 * 7)"}});
      EXPECT_EQ(result.value("stdout", ""), "42\n") << result.dump();
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    }
    if (std::string(budget) == "1m") {
      EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false, false, false}));
      EXPECT_TRUE(sandboxes_of(server.pid()).empty()) << "a sandbox waits past the budget";
    } else {
      // The first call may find the pool filled already (under ASan the server is slower to
      // read it than to fill the pool) or not; the ones after it must.
      std::vector<bool> runs = server.warm_runs();
      ASSERT_EQ(runs.size(), 3u);
      EXPECT_TRUE(runs[1] && runs[2]) << runs[0] << runs[1] << runs[2];
    }
  }
}

TEST(PoolMemory, GetSessionSaysWhatThePoolsHoldWithinTheBudget) {
  WarmServer server({"--warm", "1", "--ready-kernels", "python=1", "--pool-memory", "300m"});
  // The fresh calls' warm sandbox and the ready kernel, then the session takes the kernel and the
  // pool makes another.
  settled_sandboxes(server.pid(), 2);
  std::string session = call(server, 1, "create_session", json::object()).value("session_id", "");
  settled_sandboxes(server.pid(), 3);
  // Until the new kernel has answered and been measured, it is counted as opening.
  json pools;
  auto settled = [&pools] {
    for (const auto& holding : pools["waiting"]) {
      if (holding.value("opening", 0) != 0 || holding.value("waiting", 0) != 1) return false;
    }
    return pools["waiting"].size() == 2;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int id = 2; !settled() && std::chrono::steady_clock::now() < deadline; ++id) {
    if (id > 2) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    pools = call(server, id, "get_session", {{"session_id", session}})["pools"];
  }
  EXPECT_EQ(pools.value("memory_budget_bytes", 0ull), 300 * kMiB) << pools.dump();
  std::uint64_t held = pools.value("memory_held_bytes", 0ull);
  std::uint64_t summed = 0;
  bool warm = false;
  bool kernel = false;
  for (const auto& holding : pools["waiting"]) {
    summed += holding.value("memory_bytes", 0ull);
    if (holding.value("language", "") != "python" || holding.value("waiting", 0) != 1) continue;
    std::uint64_t bytes = holding.value("memory_bytes", 0ull);
    // Measured, not guessed: a python interpreter and its sandbox hold megabytes, a kernel tens.
    if (holding.value("pool", "") == "warm") {
      warm = true;
      EXPECT_GT(bytes, 1 * kMiB) << pools.dump();
    } else {
      kernel = true;
      EXPECT_GT(bytes, 10 * kMiB) << pools.dump();
    }
  }
  EXPECT_TRUE(warm && kernel) << pools.dump();
  EXPECT_EQ(held, summed) << pools.dump();
  EXPECT_LE(held, 300 * kMiB) << pools.dump();
}

// Killed while it waits (its sandbox's init, or only the kernel): the next session does not get
// the dead one, runs its code, and the pool makes another ready.
TEST(PoolMemory, AReadyKernelKilledWhileWaitingIsReplaced) {
  for (bool kernel_only : {false, true}) {
    WarmServer server({"--warm", "1", "--ready-kernels", "python=1"});
    settled_sandboxes(server.pid(), 2);
    auto waiting = kernels_of(server.pid());
    ASSERT_EQ(waiting.size(), 1u) << "no ready kernel waits";
    auto [init, kernel] = waiting[0];
    ASSERT_EQ(kill(kernel_only ? kernel : init, SIGKILL), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::string session = call(server, 1, "create_session", json::object()).value("session_id", "");
    call(server, 2, "execute_code", {{"session_id", session}, {"code", "x = 6 * 7"}});
    json again = call(server, 3, "execute_code", {{"session_id", session}, {"code", "print(x)"}});
    EXPECT_EQ(again.value("stdout", ""), "42\n") << (kernel_only ? "kernel killed" : "init killed");
    // The session's kernel, and a new one ready beside the warm sandbox.
    settled_sandboxes(server.pid(), 3);
    auto kernels = kernels_of(server.pid());
    EXPECT_EQ(kernels.size(), 2u);
    for (const auto& [new_init, new_kernel] : kernels) EXPECT_NE(new_kernel, kernel);
  }
}

}  // namespace
}  // namespace paddock::testing::pool_memory_test
