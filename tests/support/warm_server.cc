#include "support/warm_server.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::testing {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string temp_path(const std::string& prefix) {
  return "/tmp/" + prefix + "-" + std::to_string(getpid()) + "-" +
         std::to_string(Clock::now().time_since_epoch().count());
}

std::vector<std::string> with_defaults(std::vector<std::string> flags, const std::string& audit) {
  if (std::find(flags.begin(), flags.end(), "--preload") == flags.end()) {
    flags.insert(flags.end(), {"--preload", "python="});
  }
  // The pools' tests count the sandboxes below the server: no kernel is made ready at start
  // unless the case asks for one (the ready kernels' own tests).
  if (std::find(flags.begin(), flags.end(), "--ready-kernels") == flags.end()) {
    flags.insert(flags.end(), {"--ready-kernels", "none"});
  }
  flags.insert(flags.end(), {"--audit-log", audit});
  return flags;
}

// The CPU time (clock ticks) every process below `sandboxes` has used so far.
long long cpu_ticks_below(const std::vector<pid_t>& sandboxes) {
  long long ticks = 0;
  for (pid_t sandbox : sandboxes) {
    for (pid_t pid : process_tree(sandbox)) {
      std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
      auto after_name = stat.rfind(')');
      if (after_name == std::string::npos) continue;
      // Fields after the name: state is the first; utime and stime the 12th and 13th.
      std::istringstream fields(stat.substr(after_name + 2));
      std::string field;
      for (int i = 1; i <= 13 && fields >> field; ++i) {
        if (i >= 12) ticks += std::atoll(field.c_str());
      }
    }
  }
  return ticks;
}

// Each WarmServer's debug log, by the server's pid: settled_interpreters reads the pool's word.
std::mutex g_logs_mutex;
std::map<pid_t, std::string> g_logs;

std::string log_of(pid_t server) {
  std::lock_guard lock(g_logs_mutex);
  auto found = g_logs.find(server);
  return found != g_logs.end() ? found->second : "";
}

// Whether the pool of fresh calls' sandboxes last said, in `log`, that `count` sandboxes wait
// and none is opening: its lines "sandbox pool: KIND: N waiting, N opening; ...".
bool pool_says_waiting(const std::string& log, std::size_t count) {
  std::ifstream lines(log);
  std::string last;
  const std::string marker = "paddock mcp: debug: sandbox pool: ";
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(marker)) last = line.substr(marker.size());
  }
  static const std::regex kind(R"((\d+) waiting, (\d+) opening)");
  std::size_t waiting = 0;
  for (std::sregex_iterator it(last.begin(), last.end(), kind), end; it != end; ++it) {
    if ((*it)[2] != "0") return false;
    waiting += std::stoul((*it)[1]);
  }
  return waiting == count;
}

// What the server logged above debug level, for a failure's message.
std::string logged_above_debug(pid_t server) {
  std::ifstream lines(log_of(server));
  std::string said;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("paddock mcp: debug: ")) said += "\n  " + line;
  }
  return said.empty() ? "" : "; the server logged:" + said;
}

std::vector<std::string> server_argv(const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {paddock_binary(), "mcp", "--log-level", "debug"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return argv;
}

}  // namespace

std::string random_text(const std::string& prefix) {
  std::random_device device;
  return prefix + std::to_string(device()) + std::to_string(device());
}

// Settled: the same sandboxes, and none of their processes using CPU (an interpreter that is
// still importing its preload list is not ready), for 300 ms.
std::vector<pid_t> settled_sandboxes(pid_t server, std::size_t count) {
  auto deadline = Clock::now() + std::chrono::seconds(60);
  auto since = Clock::now();
  std::vector<pid_t> last = sandboxes_of(server);
  long long last_ticks = cpu_ticks_below(last);
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::vector<pid_t> now = sandboxes_of(server);
    long long ticks = cpu_ticks_below(now);
    if (now != last || ticks != last_ticks) {
      since = Clock::now();
      last = now;
      last_ticks = ticks;
    } else if (last.size() == count && Clock::now() - since > std::chrono::milliseconds(300)) {
      return last;
    }
  }
  std::string pids;
  for (pid_t pid : last) pids += " " + std::to_string(pid);
  ADD_FAILURE() << "the server never settled on " << count << " warm sandboxes; it has "
                << last.size() << ":" << pids << logged_above_debug(server);
  return last;
}

std::vector<pid_t> settled_interpreters(pid_t server, std::size_t count,
                                        const std::string& program) {
  // The server's own word too: an interpreter idle below it may not have been taken in yet
  // (the server's thread is starved on a loaded machine, or is still measuring it).
  std::string log = log_of(server);
  if (log.empty()) {
    ADD_FAILURE() << "settled_interpreters: " << server << " is not a WarmServer's server";
    return {};
  }
  auto deadline = Clock::now() + std::chrono::seconds(60);
  for (;;) {
    std::vector<pid_t> sandboxes = settled_sandboxes(server, count);
    std::size_t holding = 0;
    for (pid_t sandbox : sandboxes) {
      for (pid_t pid : process_tree(sandbox)) {
        if (read_file("/proc/" + std::to_string(pid) + "/cmdline").starts_with(program)) {
          ++holding;
          break;
        }
      }
    }
    if (holding == count && pool_says_waiting(log, count)) return sandboxes;
    if (Clock::now() > deadline) {
      ADD_FAILURE() << "the server's " << count
                    << " sandboxes never all held an interpreter the pool said waited"
                    << logged_above_debug(server);
      return sandboxes;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Everything a process of the sandbox holds that paddock can read: its command line, its
// environment and, where the host allows it (as root), its writable memory.
std::string readable_state(pid_t pid) {
  std::string proc = "/proc/" + std::to_string(pid);
  std::string state = read_file(proc + "/cmdline") + read_file(proc + "/environ");
  std::ifstream maps(proc + "/maps");
  std::ifstream memory(proc + "/mem", std::ios::binary);
  for (std::string line; memory && std::getline(maps, line);) {
    unsigned long start = 0, end = 0;
    char permissions[5] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &start, &end, permissions) != 3) continue;
    if (permissions[0] != 'r' || permissions[1] != 'w') continue;
    std::string region(end - start, '\0');
    memory.clear();
    memory.seekg(static_cast<std::streamoff>(start));
    if (memory.read(region.data(), static_cast<std::streamsize>(region.size()))) state += region;
  }
  return state;
}

std::vector<pid_t> process_tree(pid_t root) {
  std::vector<pid_t> tree = {root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    for (pid_t child : children_of(tree[i])) tree.push_back(child);
  }
  return tree;
}

WarmServer::WarmServer(std::vector<std::string> flags)
    : audit_(temp_path("paddock-warm-audit")),
      log_(temp_path("paddock-warm-log")),
      server_(McpProcess::Command{
          server_argv(with_defaults(std::move(flags), audit_)), log_, {}, false}) {
  std::lock_guard lock(g_logs_mutex);
  g_logs[server_.pid()] = log_;
}

WarmServer::~WarmServer() {
  {
    std::lock_guard lock(g_logs_mutex);
    g_logs.erase(server_.pid());
  }
  unlink(audit_.c_str());
  unlink(log_.c_str());
}

json WarmServer::run(json arguments, bool may_fail) {
  int id = ++next_id_;
  server_.call(id, "execute_code", std::move(arguments));
  json answer = server_.wait_for(id);
  EXPECT_FALSE(answer.is_null()) << "no answer to execute_code";
  if (answer.is_null()) return json::object();
  if (!may_fail) {
    EXPECT_FALSE(answer["result"].value("isError", false)) << answer.dump();
  }
  return answer["result"]["structuredContent"];
}

std::vector<bool> WarmServer::warm_runs() const {
  std::vector<bool> runs;
  std::ifstream lines(audit_);
  for (std::string line; std::getline(lines, line);) {
    runs.push_back(json::parse(line).value("warm", false));
  }
  return runs;
}

}  // namespace paddock::testing
