// The MCP server's warm sandboxes (mcp/warm_pool.h), through a real `paddock mcp`: fresh calls
// take them, no two calls share one, a call's timer starts when its code arrives, a waiting one
// holds nothing of the server's secrets or of earlier calls, one killed while it waits is
// replaced, and none outlives the server. A race that needs an opening held at the right moment
// is tested on the pool class itself, with real sandboxes. That a warm sandbox isolates exactly as
// a cold one does is proved by running every isolation test both ways (isolation_test.cc).

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/warm_pool.h"
#include "runtime/native/native_backend.h"
#include "runtime/warm_run.h"
#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/warm_server.h"

namespace paddock::testing::warm_pool_test {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

TEST(WarmPool, FreshCallsRunWarmAndNeverShareASandbox) {
  WarmServer server({"--warm", "1"});
  for (int i = 0; i < 4; ++i) {
    settled_interpreters(server.pid(), 1);
    std::string marker = "call-" + std::to_string(i);
    json result = server.run({{"code", "open('" + marker +
                                           "', 'w').close()\nimport os\n"
                                           "print(sorted(f for f in os.listdir('.') if not "
                                           "f.startswith('.')))\n"}});
    EXPECT_EQ(result.value("stdout", ""), "['" + marker + "', 'main.py']\n") << result.dump();
  }
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true, true, true, true}));
}

// A call that finds no sandbox waiting runs cold at once: it never waits for one being opened
// (here an interpreter importing the data libraries, which takes a second or more).
TEST(WarmPool, ACallThatFindsThePoolEmptyRunsColdAtOnce) {
  WarmServer server({"--warm", "1", "--preload", "python=numpy,pandas,matplotlib.pyplot"});
  // The first call that imports a data library runs cold and has the pool make a preloaded
  // interpreter; once it waits, two calls come one right after the other.
  for (int i = 0; i < 3; ++i) {
    if (i == 1) settled_interpreters(server.pid(), 2);  // the plain and the preloaded one
    json result = server.run({{"code", "import numpy\nprint(" + std::to_string(i) + ")"}});
    EXPECT_EQ(result.value("stdout", ""), std::to_string(i) + "\n");
  }
  // The third came while the second's replacement was still importing.
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false, true, false}));
}

// While a call is in flight the pool opens nothing, so that the call keeps its cores and its
// answer goes out first: a call of another language, which runs cold and makes the pool want a
// sandbox of that language, sees none opened beside it until it has been answered.
TEST(WarmPool, NothingOpensWhileACallIsInFlight) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  server.mcp().call(1000, "execute_code", {{"language", "bash"}, {"code", "sleep 2; echo done"}});
  std::size_t most = 0;
  for (auto until = Clock::now() + std::chrono::milliseconds(1500); Clock::now() < until;) {
    most = std::max(most, sandboxes_of(server.pid()).size());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  json answer = server.mcp().wait_for(1000);
  EXPECT_EQ(answer["result"]["structuredContent"].value("stdout", ""), "done\n") << answer.dump();
  // The python sandbox waiting and the bash call's own.
  EXPECT_EQ(most, 2u);
  // Then bash gets its own.
  settled_sandboxes(server.pid(), 2);
}

// Only warm calls hold the pool back: a long command in a session does not keep fresh calls
// that come meanwhile from finding their sandbox replaced.
TEST(WarmPool, ALongSessionCommandDoesNotHoldThePoolBack) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  server.mcp().call(10, "create_session", {{"language", "bash"}});
  json created = server.mcp().wait_for(10);
  ASSERT_FALSE(created["result"].value("isError", false)) << created.dump();
  std::string session = created["result"]["structuredContent"].value("session_id", "");
  settled_sandboxes(server.pid(), 2);
  auto sent = Clock::now();
  server.mcp().call(11, "execute_code", {{"session_id", session}, {"code", "sleep 4; echo slept"}});
  json fresh = server.run({{"code", "print('fresh')"}});
  EXPECT_EQ(fresh.value("stdout", ""), "fresh\n") << fresh.dump();
  // The session, and the fresh call's replacement, while the session's command still runs.
  std::vector<pid_t> during = settled_sandboxes(server.pid(), 2);
  EXPECT_EQ(during.size(), 2u);
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(3))
      << "the replacement came only once the session's command had ended";
  json slept = server.mcp().wait_for(11);
  EXPECT_EQ(slept["result"]["structuredContent"].value("stdout", ""), "slept\n") << slept.dump();
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true, false}));
}

TEST(WarmPool, CallsAtOnceEachGetTheirOwnSandbox) {
  WarmServer server({"--warm", "2"});
  settled_sandboxes(server.pid(), 2);
  McpProcess& mcp = server.mcp();
  for (int id = 1; id <= 4; ++id) {
    mcp.call(id, "execute_code",
             {{"code", "import time\nopen('mine-" + std::to_string(id) +
                           "', 'w').close()\ntime.sleep(0.5)\nimport os\n"
                           "print(sorted(f for f in os.listdir('.') if f.startswith('mine')))\n"}});
  }
  for (int id = 1; id <= 4; ++id) {
    json answer = mcp.wait_for(id);
    ASSERT_FALSE(answer.is_null());
    EXPECT_EQ(answer["result"]["structuredContent"].value("stdout", ""),
              "['mine-" + std::to_string(id) + "']\n")
        << answer.dump();
  }
  std::vector<bool> runs = server.warm_runs();
  // Two waited; the calls beyond them ran cold rather than wait for one.
  EXPECT_EQ(std::count(runs.begin(), runs.end(), true), 2) << json(runs).dump();
}

// A cold python run without libraries has no egress proxy on its loopback: a warm one neither,
// though a session of the same language keeps one for its installs.
TEST(WarmPool, AWarmSandboxHasNoProxyAColdRunLacks) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  json result = server.run(
      {{"code",
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 3128), 2)\n"
        "    print('a proxy listens')\nexcept ConnectionRefusedError:\n    print('refused')\n"}});
  EXPECT_EQ(result.value("stdout", ""), "refused\n") << result.dump();
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true}));
}

TEST(WarmPool, TheTimerStartsWhenTheCodeArrives) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  // The sandbox has waited longer than the call's whole timeout before the call comes.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  json result =
      server.run({{"code", "import time\ntime.sleep(1.2)\nprint('done')\n"}, {"timeout", 2}});
  EXPECT_EQ(result.value("stdout", ""), "done\n") << result.dump();
  EXPECT_EQ(result.value("exit_code", -1), 0) << result.dump();
  // And the timeout still holds for the code itself.
  settled_interpreters(server.pid(), 1);
  json late =
      server.run({{"code", "import time\ntime.sleep(5)\nprint('never')\n"}, {"timeout", 1}}, true);
  EXPECT_EQ(late.value("stdout", ""), "") << late.dump();
  EXPECT_EQ(late.value("timed_out", false), true) << late.dump();
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true, true}));
}

TEST(WarmPool, AWaitingSandboxHoldsNoSecretAndNothingOfEarlierCalls) {
  std::string secret = random_text("warm-secret-");
  std::string request_data = random_text("warm-request-");
  setenv("WARM_TEST_SECRET", secret.c_str(), 1);
  WarmServer server({"--warm", "1", "--pass-through-env", "WARM_TEST_SECRET"});
  unsetenv("WARM_TEST_SECRET");
  settled_interpreters(server.pid(), 1);
  // The secret reaches the code when it runs...
  json result =
      server.run({{"code", "import os\nopen('data', 'w').write('" + request_data +
                               "')\nprint(os.environ['WARM_TEST_SECRET'] == '" + secret + "')\n"},
                  {"files", json::array({{{"path", "input.txt"}, {"content", request_data}}})}});
  EXPECT_EQ(result.value("stdout", ""), "True\n") << result.dump();
  // ...but the sandbox waiting for the next call holds neither it nor the last call's data.
  std::vector<pid_t> waiting = settled_interpreters(server.pid(), 1);
  ASSERT_EQ(waiting.size(), 1u);
  std::size_t inspected = 0;
  for (pid_t pid : process_tree(waiting[0])) {
    std::string state = readable_state(pid);
    if (!state.empty()) ++inspected;
    EXPECT_EQ(state.find(secret), std::string::npos) << "process " << pid << " holds the secret";
    EXPECT_EQ(state.find(request_data), std::string::npos)
        << "process " << pid << " holds an earlier call's data";
  }
  // The relay and init, with its plan: as root everything is readable, memory included. An
  // unprivileged paddock cannot read them at all (init is not dumpable), nor can the program.
  if (geteuid() == 0) {
    EXPECT_GE(inspected, 2u);
  }
  // The next call, warm, finds no trace of the last one.
  json next = server.run({{"code", "import os\nprint(sorted(os.listdir('.')))\n"}});
  EXPECT_EQ(next.value("stdout", ""), "['.paddock', 'main.py']\n") << next.dump();
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true, true}));
}

// Killed from outside while it waits (its init, or only its interpreter): the dead one is not
// used; the call runs cold, and the pool makes another.
TEST(WarmPool, ASandboxKilledWhileWaitingIsReplaced) {
  for (bool interpreter_only : {false, true}) {
    WarmServer server({"--warm", "1"});
    std::vector<pid_t> waiting = settled_interpreters(server.pid(), 1);
    ASSERT_EQ(waiting.size(), 1u);
    pid_t victim = waiting[0];
    if (interpreter_only) {
      victim = 0;
      for (pid_t pid : process_tree(waiting[0])) {
        if (read_file("/proc/" + std::to_string(pid) + "/cmdline").starts_with("python3")) {
          victim = pid;
        }
      }
      ASSERT_NE(victim, 0) << "no interpreter waits in the sandbox";
    }
    ASSERT_EQ(kill(victim, SIGKILL), 0);
    // Dead before the call comes (one killed as its call is handed over is that call's end).
    auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      std::string stat = read_file("/proc/" + std::to_string(victim) + "/stat");
      if (stat.empty() || stat.find(") Z ") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    json result = server.run({{"code", "print('after')"}});
    EXPECT_EQ(result.value("stdout", ""), "after\n") << result.dump();
    std::vector<pid_t> replaced = settled_interpreters(server.pid(), 1);
    ASSERT_EQ(replaced.size(), 1u);
    EXPECT_NE(replaced[0], waiting[0]);
    json warm = server.run({{"code", "print('warm again')"}});
    EXPECT_EQ(warm.value("stdout", ""), "warm again\n") << warm.dump();
    EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false, true}))
        << (interpreter_only ? "its interpreter killed" : "its init killed");
  }
}

TEST(WarmPool, NoneOutlivesTheServer) {
  for (bool killed : {false, true}) {
    WarmServer server({"--warm", "3"});
    std::vector<pid_t> waiting = settled_interpreters(server.pid(), 3);
    std::vector<pid_t> all;
    for (pid_t pid : waiting) {
      for (pid_t process : process_tree(pid)) all.push_back(process);
    }
    ASSERT_GE(all.size(), 6u);  // each: a relay and its init
    if (killed) {
      // Killed outright, the server cleans nothing: the sandboxes die with it all the same.
      kill(server.pid(), SIGKILL);
      server.mcp().wait_exit(std::chrono::seconds(10));
    } else {
      server.mcp().close_input();
      EXPECT_EQ(server.mcp().wait_exit(std::chrono::seconds(10)), 0);
    }
    auto deadline = Clock::now() + std::chrono::seconds(5);
    std::vector<pid_t> alive = all;
    while (!alive.empty() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::erase_if(alive, [](pid_t pid) {
        std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
        return stat.empty() || stat.find(") Z ") != std::string::npos;
      });
    }
    EXPECT_TRUE(alive.empty()) << alive.size() << " processes of warm sandboxes left"
                               << (killed ? " after SIGKILL" : " after the input ended");
  }
}

// Made ready for no network a later command could get: a warm sandbox has no resolv.conf, no
// fence rules and no proxy that a cold run without an install lacks, so code cannot tell them
// apart by what they refuse.
TEST(WarmPool, ASandboxLooksTheSameWarmAndCold) {
  const std::string probe =
      "import errno, os, socket\n"
      "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
      "try:\n    s.connect(('169.254.0.53', 53)); s.send(b'x'); print('sent')\n"
      "except OSError as e:\n    print(errno.errorcode[e.errno])\n"
      "print(sorted(os.listdir('/etc')))\n";
  WarmServer warm({"--warm", "1"});
  settled_interpreters(warm.pid(), 1);
  WarmServer cold({"--warm", "0"});
  json from_warm = warm.run({{"code", probe}});
  json from_cold = cold.run({{"code", probe}});
  EXPECT_EQ(from_warm.value("stdout", "warm"), from_cold.value("stdout", "cold"));
  EXPECT_EQ(warm.warm_runs(), (std::vector<bool>{true}));
}

// A call's spec is checked as a cold run's is, before a warm sandbox is taken.
// A warm call's code and files ride with its command to the sandbox's init, which writes them
// as the sandbox user beneath /work; more than one packet holds go one by one instead.
TEST(WarmPool, ACallsFilesArriveWithItsCodeWhateverTheirSize) {
  WarmServer server({"--warm", "1"});
  std::string big(200 * 1024, 'b');
  const char* code =
      "import os\n"
      "for path in ['data/in.txt', 'big.txt', 'main.py']:\n"
      "    info = os.stat(path)\n"
      "    print(path, info.st_size, info.st_uid == os.getuid(), oct(info.st_mode & 0o777))\n";
  for (const std::string& second : {std::string("small"), big}) {
    settled_interpreters(server.pid(), 1);
    json result =
        server.run({{"code", code},
                    {"files", json::array({{{"path", "data/in.txt"}, {"content", "in"}},
                                           {{"path", "big.txt"}, {"content", second}}})}});
    EXPECT_EQ(result.value("stdout", ""),
              "data/in.txt 2 True 0o644\nbig.txt " + std::to_string(second.size()) +
                  " True 0o644\nmain.py " + std::to_string(std::strlen(code)) + " True 0o644\n")
        << result.dump();
  }
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{true, true}));
}

TEST(WarmPool, ACallsFilesAreCheckedAsACold) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  json bad = {{"code", "print(1)"},
              {"files", json::array({{{"path", "./c.txt"}, {"content", "x"}}})}};
  server.mcp().call(1, "execute_code", bad);
  json warm_answer = server.mcp().wait_for(1);
  WarmServer cold({"--warm", "0"});
  cold.mcp().call(1, "execute_code", bad);
  json cold_answer = cold.mcp().wait_for(1);
  ASSERT_FALSE(warm_answer.is_null());
  ASSERT_FALSE(cold_answer.is_null());
  EXPECT_TRUE(cold_answer["result"].value("isError", false)) << cold_answer.dump();
  EXPECT_EQ(warm_answer["result"], cold_answer["result"]);
}

// Sessions and waiting sandboxes together stay within --max-sessions: sessions are never
// refused for the pool, whose sandboxes give way.
TEST(WarmPool, WaitingSandboxesGiveWayToSessions) {
  WarmServer server({"--warm", "2", "--max-sessions", "3"});
  server.run({{"code", "echo warm"}, {"language", "bash"}});  // bash's pool fills too
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (sandboxes_of(server.pid()).size() < 3 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  for (int id = 10; id < 13; ++id) {
    server.mcp().call(id, "create_session", {{"language", "bash"}});
    json created = server.mcp().wait_for(id);
    ASSERT_FALSE(created.is_null());
    EXPECT_FALSE(created["result"].value("isError", false)) << created.dump();
  }
  // The three sessions, and no warm sandbox beside them once the pool has given way.
  EXPECT_EQ(settled_sandboxes(server.pid(), 3).size(), 3u);
}

// A sandbox the pool was opening when a session took the last room is closed once it opens: fit()
// retires only the sandboxes already waiting, so the one still opening must check the room
// itself, or it would wait beside the session over --max-sessions until it aged out.
// The session lands in the opening's few milliseconds in about 4 rounds of 10 here: 8 rounds
// catch the defect 98 times in 100.
TEST(WarmPool, ASandboxOpenedAfterASessionTookTheLastRoomIsClosed) {
  for (int round = 0; round < 8; ++round) {
    WarmServer server({"--warm", "1", "--max-sessions", "1"});
    settled_interpreters(server.pid(), 1);
    server.run({{"code", "print(1)"}});  // its end starts opening the replacement
    server.mcp().call(10, "create_session", {{"language", "bash"}});
    json created = server.mcp().wait_for(10);
    ASSERT_FALSE(created.is_null());
    EXPECT_FALSE(created["result"].value("isError", false)) << created.dump();
    EXPECT_EQ(settled_sandboxes(server.pid(), 1).size(), 1u) << "round " << round;
  }
}

// A call whose sandbox is still being opened runs cold at once instead of waiting for it, and a
// call of another shape reshapes the language: the sandbox opened for the first shape is not
// kept. The pool is the server's own class with real sandboxes; the test holds the pool's
// opening, as a slow opening (an interpreter preloading) would.
TEST(WarmPool, ACallWhoseSandboxIsStillOpeningRunsColdAtOnce) {
  native::NativeBackend backend;
  runtime::SandboxShape mine = shape_of(spec_for({"true"}));
  mine.session_networking = false;
  runtime::SandboxShape other = mine;
  other.limits.memory_bytes = 256ull << 20;
  auto opened_mine = backend.open_session(mine, runtime::RunPlan{});
  auto opened_other = backend.open_session(other, runtime::RunPlan{});
  ASSERT_TRUE(opened_mine && opened_other);
  const runtime::Session* other_sandbox = opened_other->get();
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t openings = 0;
  bool released = false;
  app::WarmPool pool(
      1,
      [&](const std::string&, const runtime::SandboxShape& shape,
          const std::optional<runtime::WarmInterpreter>&)
          -> core::Result<std::unique_ptr<runtime::Session>> {
        std::unique_lock lock(mutex);
        ++openings;
        changed.notify_all();
        changed.wait_for(lock, std::chrono::seconds(10), [&] { return released; });
        auto& ready = shape == mine ? *opened_mine : *opened_other;
        if (!released || !ready) return core::Error{0, "no sandbox of this shape to hand out"};
        return std::move(ready);
      },
      [](std::size_t) { return true; });
  pool.prepare("python", mine, std::nullopt);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return openings == 1; }));
  }
  runtime::RunPlan plan;
  auto asked = Clock::now();
  EXPECT_EQ(pool.take("python", mine, std::nullopt, plan), nullptr);
  // Long before the opening is let go (10 s): the call did not wait for it.
  EXPECT_LT(Clock::now() - asked, std::chrono::seconds(5));
  EXPECT_EQ(pool.take("python", other, std::nullopt, plan), nullptr);  // reshapes: runs cold
  {
    std::lock_guard lock(mutex);
    released = true;
  }
  changed.notify_all();
  // The sandbox opened for the other shape waits for a call of that shape.
  auto deadline = Clock::now() + std::chrono::seconds(10);
  std::unique_ptr<runtime::Session> later;
  while (!later && Clock::now() < deadline) {
    later = pool.take("python", other, std::nullopt, plan);
    if (!later) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(later.get(), other_sandbox);
}

// A sandbox with a network (here an egress allowlist) does not wait longer than
// WarmPool::kMaxWait (30 s): what it learned of the host when it was made (its addresses, which
// the network fence and the proxy refuse) never grows older. One without a network learned
// nothing that ages, and keeps waiting: its interpreter's preload is not paid again.
TEST(WarmPool, OnlyASandboxWithANetworkIsReplacedAfterThirtySeconds) {
  WarmServer allowlisted({"--warm", "1", "--allow-host", "example.org"});
  WarmServer offline({"--warm", "1"});
  std::vector<pid_t> first = settled_interpreters(allowlisted.pid(), 1);
  std::vector<pid_t> first_offline = settled_interpreters(offline.pid(), 1);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first_offline.size(), 1u);
  std::this_thread::sleep_for(std::chrono::seconds(31));
  std::vector<pid_t> later = settled_interpreters(allowlisted.pid(), 1);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_NE(later[0], first[0]) << "the sandbox made at the start still waits after 31 s";
  EXPECT_EQ(settled_interpreters(offline.pid(), 1), first_offline);
  for (WarmServer* server : {&allowlisted, &offline}) {
    json result = server->run({{"code", "print('fresh')"}});
    EXPECT_EQ(result.value("stdout", ""), "fresh\n");
    EXPECT_EQ(server->warm_runs(), (std::vector<bool>{true}));
  }
}

TEST(WarmPool, WarmZeroKeepsNone) {
  WarmServer server({"--warm", "0"});
  json result = server.run({{"code", "print(1)"}});
  EXPECT_EQ(result.value("stdout", ""), "1\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(sandboxes_of(server.pid()).empty());
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false}));
}

// The memory target: an idle server, its warm sandbox waiting, within 15 MiB. GnuTLS's
// load-time initialization alone (a library paddock never calls) took it to about 15.4, and
// libcurl's thirty libraries, mapped at start, to 15.0 (it is loaded on first use now: 11.6).
TEST(WarmPool, AnIdleServerWithItsWarmSandboxStaysWithinFifteenMebibytes) {
  WarmServer server({"--warm", "1"});
  settled_interpreters(server.pid(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  long rss_kib = -1;
  std::ifstream status("/proc/" + std::to_string(server.pid()) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) rss_kib = std::stol(line.substr(6));
  }
  std::ifstream maps("/proc/" + std::to_string(server.pid()) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    EXPECT_EQ(line.find("libcurl"), std::string::npos) << "an idle server maps " << line;
  }
  RecordProperty("idle_rss_kib", std::to_string(rss_kib));
  EXPECT_GT(rss_kib, 0);
  EXPECT_LE(rss_kib, 15 * 1024) << "the idle server's RSS is " << rss_kib << " KiB";
}

}  // namespace
}  // namespace paddock::testing::warm_pool_test
