// A long-running `paddock mcp` does not grow: over 1200 calls (fresh, in a session, and eight at
// once) its memory levels off, and it keeps no file descriptor, sandbox process or temporary
// directory of the calls it served.

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::soak_test {
namespace {

using json = nlohmann::json;

long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

std::size_t fd_count(pid_t pid) {
  return directory_entries("/proc/" + std::to_string(pid) + "/fd").size();
}

bool alive(pid_t pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  return !stat.empty() && stat.find(") Z ") == std::string::npos;
}

// A directory of its own for the server's temporary files (TMPDIR), so that what other work on
// the machine leaves in /tmp meanwhile (scripts/test builds images beside the suites) does not
// count as the server's.
class PrivateTemp {
 public:
  PrivateTemp() {
    char pattern[] = "/tmp/paddock-soak-XXXXXX";
    path_ = mkdtemp(pattern) != nullptr ? pattern : "";
    EXPECT_FALSE(path_.empty());
    setenv("TMPDIR", path_.c_str(), 1);  // the server started next inherits it
  }
  ~PrivateTemp() {
    unsetenv("TMPDIR");
    rmdir(path_.c_str());
  }
  [[nodiscard]] std::vector<std::string> entries() const { return directory_entries(path_); }

 private:
  std::string path_;
};

class Soak {
 public:
  explicit Soak(McpProcess& server) : server_(server) {}

  void fresh(int calls) {
    for (int i = 0; i < calls; ++i) expect_one(run({{"code", "print(1)"}}), "1\n");
  }

  void in_session(int calls) {
    server_.call(++id_, "create_session", {{"language", "python"}});
    json created = server_.wait_for(id_);
    ASSERT_FALSE(created.is_null());
    std::string session = created["result"]["structuredContent"]["session_id"];
    for (int i = 0; i < calls; ++i) {
      expect_one(
          run({{"code", "x = " + std::to_string(i) + "\nprint(1)"}, {"session_id", session}}),
          "1\n");
    }
    server_.call(++id_, "close_session", {{"session_id", session}});
    ASSERT_FALSE(server_.wait_for(id_).is_null());
  }

  // `calls` fresh calls, eight in flight at a time.
  void eight_at_once(int calls) {
    for (int done = 0; done < calls; done += 8) {
      int first = id_ + 1;
      for (int i = 0; i < 8; ++i) server_.call(++id_, "execute_code", {{"code", "print(1)"}});
      for (int id = first; id <= id_; ++id) {
        json answer = server_.wait_for(id);
        ASSERT_FALSE(answer.is_null());
        expect_one(answer.contains("result") ? answer["result"]["structuredContent"] : answer,
                   "1\n");
      }
    }
  }

 private:
  json run(json arguments) {
    server_.call(++id_, "execute_code", std::move(arguments));
    json answer = server_.wait_for(id_);
    EXPECT_FALSE(answer.is_null());
    return answer.is_null() ? json::object() : answer["result"]["structuredContent"];
  }
  void expect_one(const json& result, const std::string& stdout_text) {
    // An error answer (no result) is wrong too, and shown whole.
    if (!result.is_object() || result.value("stdout", "") != stdout_text) ++wrong_;
    EXPECT_LE(wrong_, 0) << result.dump();
  }

  McpProcess& server_;
  int id_ = 0;
  int wrong_ = 0;
};

TEST(Soak, TwelveHundredCallsLeaveNothingAndMemoryLevelsOff) {
  PrivateTemp temp;
  std::vector<pid_t> sandboxes;
  long first_rss = 0;
  {
    McpProcess server;
    Soak soak(server);
    // The first round touches what every later one uses (each worker's stack, the paths of
    // sessions and of concurrent calls): memory after it is the level to keep.
    for (int round = 0; round < 2; ++round) {
      soak.fresh(200);
      soak.in_session(200);
      soak.eight_at_once(200);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      long rss = rss_kib(server.pid());
      std::size_t fds = fd_count(server.pid());
      if (round == 0) {
        first_rss = rss;
        RecordProperty("rss_kib_after_600_calls", std::to_string(rss));
      } else {
        RecordProperty("rss_kib_after_1200_calls", std::to_string(rss));
        // No growth: 600 more calls of the same kinds add at most a megabyte.
        EXPECT_LE(rss - first_rss, 1024) << "RSS went from " << first_rss << " KiB to " << rss
                                         << " KiB over the second 600 calls";
      }
      // stdin, stdout, stderr, the audit-less server's own (signalfd, eventfds, the pools'
      // waiting sandbox and ready kernel, about five each): a fixed handful, never one per call.
      EXPECT_LE(fds, 32u) << "the server holds " << fds << " descriptors after "
                          << (round + 1) * 600 << " calls";
      // Between calls only the warm sandbox waiting for the next fresh call, and the kernel
      // made ready for the next session, are there.
      std::vector<pid_t> now = sandboxes_of(server.pid());
      EXPECT_LE(now.size(), 2u) << now.size() << " sandboxes stay after " << (round + 1) * 600
                                << " calls";
      sandboxes.insert(sandboxes.end(), now.begin(), now.end());
    }
    server.close_input();
    EXPECT_EQ(server.wait_exit(std::chrono::seconds(20)), 0);
  }
  // Nothing stays once it has exited: no sandbox, no temporary directory.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (pid_t pid : sandboxes)
    EXPECT_FALSE(alive(pid)) << "sandbox " << pid << " outlived the server";
  EXPECT_TRUE(temp.entries().empty()) << temp.entries().size() << " temporary files stay";
}

}  // namespace
}  // namespace paddock::testing::soak_test
