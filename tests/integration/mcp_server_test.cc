// `paddock mcp` as a client sees it, over real pipes with real sandboxes: a long run does not
// hold up anything else, cancellation and shutdown leave no process behind, bad input gets its
// error and the next request its answer.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::mcp_server_test {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Processes on the host whose command line has `marker` (the code file holds it, and python
// shows the file in its argv only as main.py, so the marker goes into an argv via sys.argv).
bool process_gone(const std::string& marker, std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (processes_with(marker).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Code that sleeps for a minute in a process whose command line carries `marker`.
std::string sleeper(const std::string& marker) {
  return "import os\nos.execvp('python3', ['python3', '-c', 'import time; time.sleep(60)', '" +
         marker + "'])\n";
}

// Waits until a process with `marker` runs.
bool process_started(const std::string& marker) {
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    if (!processes_with(marker).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(McpServer, ALongRunHoldsUpNothingElse) {
  McpProcess server;
  server.call(1, "execute_code", {{"code", "import time; time.sleep(10); print('slow')"}});
  server.request(2, "ping");
  server.request(3, "tools/list");
  server.call(4, "execute_code", {{"code", "print('fast')"}});
  EXPECT_FALSE(server.wait_for(2).is_null());
  EXPECT_FALSE(server.wait_for(3).is_null());
  json fast = server.wait_for(4);
  EXPECT_EQ(fast["result"]["structuredContent"]["stdout"], "fast\n");
  // All answered while the slow run still runs.
  EXPECT_TRUE(server.wait_for(1, std::chrono::seconds(0)).is_null());
  json slow = server.wait_for(1);
  EXPECT_EQ(slow["result"]["structuredContent"]["stdout"], "slow\n");
}

// The progress messages of a call, in order.
std::vector<std::string> progress_messages(const McpProcess& server) {
  std::vector<std::string> messages;
  for (const auto& note : server.notifications()) {
    if (note.value("method", "") == "notifications/progress") {
      messages.push_back(note["params"].value("message", ""));
    }
  }
  return messages;
}

// A program printing for its whole timeout: its progress stops at the result's cap per stream,
// and comes at most five times a second, however fast it prints.
TEST(McpServer, ProgressStopsAtTheResultCapAndIsPaced) {
  McpProcess server({"--result-limit", "64k"});
  const auto started = Clock::now();
  server.call(1, "execute_code",
              {{"code", "import sys\nwhile True:\n    sys.stdout.write('x' * 99 + '\\n')\n"},
               {"timeout", 3}},
              {{"progressToken", "flood"}});
  json answer = server.wait_for(1);
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  ASSERT_FALSE(answer.is_null());
  EXPECT_EQ(answer["result"]["structuredContent"]["timed_out"], true) << answer.dump();
  const std::vector<std::string> messages = progress_messages(server);
  std::size_t bytes = 0;
  for (const auto& message : messages) bytes += message.size();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages.front().find("xxxx"), std::string::npos);
  EXPECT_LE(bytes, 64u * 1024) << messages.size() << " messages";
  EXPECT_LE(messages.size(), static_cast<std::size_t>(seconds * 5) + 2) << bytes << " bytes";
}

// Pacing joins lines, it does not lose them: what came within the cap is all sent, in order.
TEST(McpServer, PacedProgressKeepsEveryLine) {
  McpProcess server;
  server.call(2, "execute_code",
              {{"code",
                "import time\nfor i in range(40):\n    print(f'line-{i}', flush=True)\n"
                "    time.sleep(0.02)\n"}},
              {{"progressToken", 2}});
  ASSERT_FALSE(server.wait_for(2).is_null());
  std::string all;
  for (const auto& message : progress_messages(server)) all += message + "\n";
  std::string expected;
  for (int i = 0; i < 40; ++i) expected += "line-" + std::to_string(i) + "\n";
  EXPECT_EQ(all, expected);
  EXPECT_LE(progress_messages(server).size(), 8u);  // 0.8 s of printing
}

TEST(McpServer, ConcurrentCallsEachGetTheirOwnAnswer) {
  McpProcess server;
  for (int i = 0; i < 20; ++i) {
    server.call(100 + i, "execute_code", {{"code", "print(" + std::to_string(i) + " * 3)"}});
  }
  for (int i = 0; i < 20; ++i) {
    json answer = server.wait_for(100 + i);
    ASSERT_FALSE(answer.is_null()) << i;
    EXPECT_EQ(answer["result"]["structuredContent"]["stdout"], std::to_string(i * 3) + "\n");
  }
}

TEST(McpServer, CancellationKillsTheSandboxAndSendsNoAnswer) {
  McpProcess server;
  std::string marker = "paddock-mcp-cancel-" + std::to_string(getpid());
  server.call(7, "execute_code", {{"code", sleeper(marker)}});
  ASSERT_TRUE(process_started(marker));
  server.send({{"jsonrpc", "2.0"},
               {"method", "notifications/cancelled"},
               {"params", {{"requestId", 7}, {"reason", "test"}}}});
  EXPECT_TRUE(process_gone(marker, std::chrono::seconds(10)));
  EXPECT_TRUE(server.wait_for(7, std::chrono::seconds(1)).is_null());
  server.request(8, "ping");
  EXPECT_FALSE(server.wait_for(8).is_null());
}

TEST(McpServer, EndOfInputKillsEverythingAndExitsZero) {
  std::string marker = "paddock-mcp-eof-" + std::to_string(getpid());
  McpProcess server;
  server.call(1, "create_session", json::object());
  std::string session = server.wait_for(1)["result"]["structuredContent"]["session_id"];
  server.call(2, "execute_code", {{"code", sleeper(marker + "-a")}});
  server.call(3, "execute_code", {{"code", sleeper(marker + "-b")}, {"session_id", session}});
  ASSERT_TRUE(process_started(marker + "-a"));
  ASSERT_TRUE(process_started(marker + "-b"));
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(10)), 0);
  EXPECT_TRUE(process_gone(marker, std::chrono::seconds(5)));
}

TEST(McpServer, SigtermKillsEverythingAndExitsZero) {
  std::string marker = "paddock-mcp-term-" + std::to_string(getpid());
  McpProcess server;
  server.call(1, "execute_code", {{"code", sleeper(marker)}});
  ASSERT_TRUE(process_started(marker));
  kill(server.pid(), SIGTERM);
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(10)), 0);
  EXPECT_TRUE(process_gone(marker, std::chrono::seconds(5)));
}

TEST(McpServer, BadInputGetsItsErrorAndTheNextRequestItsAnswer) {
  McpProcess server;
  server.request(1, "initialize",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  EXPECT_EQ(server.wait_for(1)["result"]["protocolVersion"], "2025-11-25");
  server.send_line("{not json");
  server.send_line(std::string(200000, '['));
  server.send_line(
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}");
  server.send_line(std::string(33u << 20, 'x'));  // over the 32 MiB line limit
  server.request(3, "no/such/method");
  server.call(4, "no_such_tool", json::object());
  server.call(5, "execute_code", {{"code", 42}});
  server.request(6, "ping");
  EXPECT_EQ(server.wait_for(3)["error"]["code"], -32601);
  EXPECT_EQ(server.wait_for(4)["error"]["code"], -32602);
  json wrong = server.wait_for(5);
  EXPECT_EQ(wrong["result"]["isError"], true);
  EXPECT_NE(wrong["result"]["content"][0]["text"].get<std::string>().find("'code' must be a "
                                                                          "string"),
            std::string::npos);
  EXPECT_EQ(server.wait_for(6)["result"], json::object());
  int parse_errors = 0;
  for (const auto& message : server.notifications()) {
    if (message.contains("error") && message["error"]["code"] == -32700) ++parse_errors;
  }
  EXPECT_EQ(parse_errors, 4);
}

TEST(McpServer, SessionKeepsFilesAndConfinesPaths) {
  McpProcess server;
  server.call(1, "create_session", json::object());
  std::string session = server.wait_for(1)["result"]["structuredContent"]["session_id"];
  server.call(
      2, "execute_code",
      {{"session_id", session},
       {"code", "import os\nopen('kept.txt','w').write('kept')\nos.symlink('/etc', 'out')"}});
  EXPECT_EQ(server.wait_for(2)["result"]["isError"], false);
  server.call(3, "execute_code",
              {{"session_id", session}, {"code", "print(open('kept.txt').read())"}});
  EXPECT_EQ(server.wait_for(3)["result"]["structuredContent"]["stdout"], "kept\n");
  server.call(4, "read_file", {{"session_id", session}, {"path", "out/passwd"}});
  EXPECT_EQ(server.wait_for(4)["result"]["isError"], true);
  server.call(5, "write_file", {{"session_id", session}, {"path", "out/evil"}, {"content", "x"}});
  EXPECT_EQ(server.wait_for(5)["result"]["isError"], true);
  server.call(6, "close_session", {{"session_id", session}});
  EXPECT_EQ(server.wait_for(6)["result"]["structuredContent"]["closed"], true);
  server.call(7, "execute_code", {{"session_id", session}, {"code", "print(1)"}});
  EXPECT_EQ(server.wait_for(7)["result"]["isError"], true);
}

// --seccomp-profile, the row `paddock run` has too, reaches every sandbox of the server: a
// profile that refuses mkdir with a marker errno (which no kernel path gives) is seen from
// inside, by a fresh call and by a session's.
TEST(McpServer, ItsSeccompProfileIsTheSandboxesFilter) {
  constexpr int kMarker = 199;
  nlohmann::json profile =
      nlohmann::json::parse(read_file(source_dir() + "/policies/seccomp/default.json"));
  profile["defaultErrnoRet"] = kMarker;
  for (auto& rule : profile["syscalls"]) {
    auto& names = rule["names"];
    for (const char* refused : {"mkdir", "mkdirat"}) {
      names.erase(std::remove(names.begin(), names.end(), refused), names.end());
    }
  }
  std::string path =
      ::testing::TempDir() + "/paddock-mcp-profile-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << profile.dump();
  McpProcess server({"--seccomp-profile", path});
  const char* code =
      "import os\ntry:\n    os.mkdir('made')\n    print('made')\n"
      "except OSError as error:\n    print('errno', error.errno)\n";
  server.call(1, "execute_code", {{"code", code}});
  auto fresh = server.wait_for(1);
  EXPECT_EQ(fresh["result"]["structuredContent"]["stdout"],
            "errno " + std::to_string(kMarker) + "\n")
      << fresh.dump();
  std::string session = server.open_session(2, nlohmann::json::object());
  server.call(3, "execute_code", {{"code", code}, {"session_id", session}});
  auto kept = server.wait_for(3);
  EXPECT_EQ(kept["result"]["structuredContent"]["stdout"],
            "errno " + std::to_string(kMarker) + "\n")
      << kept.dump();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace paddock::testing::mcp_server_test
