// `paddock wrap` attacked from inside: a hostile MCP server of the tests' own
// (tests/support/hostile_mcp_server.py, shared read-only at /work/support) tries what a wrapped
// server must not get away with, and a client drives the wrapper over pipes as an MCP client
// would. Every test gives --state-dir of a temporary folder (or none): never the user's home.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/process_memory.h"
#include "support/temp_folder.h"

namespace paddock::testing::wrap_test {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;

std::string support_dir() {
  return source_dir() + "/tests/support";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// A wrapper of the hostile server: `flags` before `--`, `server_flags` after the script.
class Wrapped {
 public:
  Wrapped(std::vector<std::string> flags, std::vector<std::string> env = {},
          std::vector<std::string> server_flags = {}, bool sockets = false)
      : log_("wrapt-log") {
    std::vector<std::string> argv = {paddock_binary(), "wrap", "--share",
                                     support_dir() + "=support"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const char* word : {"--", "python3", "/work/support/hostile_mcp_server.py"}) {
      argv.emplace_back(word);
    }
    argv.insert(argv.end(), server_flags.begin(), server_flags.end());
    process_.emplace(McpProcess::Command{argv, log_ / "stderr", std::move(env), sockets});
  }

  McpProcess& client() { return *process_; }
  std::string stderr_text() const { return read_file(log_ / "stderr"); }

  // The MCP handshake; the server's answer.
  json initialize() {
    process_->request(1, "initialize",
                      {{"protocolVersion", "2025-06-18"},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "wrap_test"}, {"version", "1"}}}});
    json answer = process_->wait_for(1, seconds(60));
    process_->send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return answer;
  }
  json call(int id, const std::string& tool, json arguments = json::object(),
            seconds timeout = seconds(60)) {
    process_->call(id, tool, std::move(arguments));
    return process_->wait_for(id, timeout);
  }
  // Closes the client's end and waits for the wrapper: its exit status, -1 if it did not end.
  int finish(seconds timeout = seconds(15)) {
    process_->close_input();
    return process_->wait_exit(timeout);
  }

 private:
  TempFolder log_;
  std::optional<McpProcess> process_;
};

// The text of a tool result the hostile server gave (its refusals are isError results).
std::string answer_text(const json& answer) {
  return McpProcess::text_of(answer);
}

std::vector<json> audit_lines(const std::string& path) {
  std::vector<json> lines;
  for (const auto& line : lines_of(read_file(path))) lines.push_back(json::parse(line));
  return lines;
}

// 1. The wrapper's secrets, the host's and an unshared folder's files are not in the sandbox.
TEST(Wrap, TheServerCannotReadTheWrappersSshKey) {
  const std::string marker = "ssh-marker-" + std::to_string(getpid());
  TempFolder home("wrapt-home"), elsewhere("wrapt-elsewhere"), state("wrapt-state");
  ASSERT_EQ(mkdir((home / ".ssh").c_str(), 0700), 0);
  write_text(home / ".ssh/id_rsa", marker);
  write_text(elsewhere / "secret.txt", marker);
  Wrapped wrap({"--state-dir", state.path()}, {"HOME=" + home.path()});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  int id = 10;
  for (const std::string& path :
       {home / ".ssh/id_rsa", std::string("/etc/shadow"), elsewhere / "secret.txt",
        source_dir() + "/tests/integration/wrap_test.cc",
        std::string("/work/support/../integration/wrap_test.cc")}) {
    json answer = wrap.call(++id, "read_file", {{"path", path}});
    ASSERT_TRUE(answer.contains("result")) << path << ": " << answer.dump();
    EXPECT_TRUE(answer["result"].value("isError", false)) << path << ": " << answer.dump();
    EXPECT_TRUE(contains(answer_text(answer), "refused: ")) << path << ": " << answer.dump();
    EXPECT_FALSE(contains(answer.dump(), marker)) << path;
  }
  // The share itself is readable: the refusals above are not a server that reads nothing.
  json own = wrap.call(++id, "read_file", {{"path", "/work/support/hostile_mcp_server.py"}});
  EXPECT_TRUE(contains(answer_text(own), "read: #!/usr/bin/env python3")) << own.dump();
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
}

// 2. Writes land only in the read-write shares (and the server's home).
TEST(Wrap, TheServerWritesOnlyIntoItsReadWriteShares) {
  TempFolder state("wrapt-state"), out("wrapt-out");
  uid_t owner = geteuid() == 0 ? 65534 : geteuid();
  gid_t group = geteuid() == 0 ? 65534 : getegid();
  ASSERT_EQ(chown(out.path().c_str(), owner, group), 0);
  Wrapped wrap({"--state-dir", state.path(), "--share", out.path() + "=out:rw"});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  int id = 10;
  for (const std::string path :
       {"/usr/wrapped-x", "/etc/wrapped-x", "/work/support/wrapped-x", "/work/../wrapped-x"}) {
    json answer = wrap.call(++id, "write_file", {{"path", path}, {"content", "x"}});
    ASSERT_TRUE(answer.contains("result")) << path << ": " << answer.dump();
    EXPECT_TRUE(contains(answer_text(answer), "refused: ")) << path << ": " << answer.dump();
  }
  EXPECT_FALSE(std::filesystem::exists(support_dir() + "/wrapped-x"));
  json written =
      wrap.call(++id, "write_file", {{"path", "/work/out/made.txt"}, {"content", "landed"}});
  EXPECT_EQ(answer_text(written), "wrote") << written.dump();
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
  EXPECT_EQ(read_file(out / "made.txt"), "landed");
  struct stat info {};
  ASSERT_EQ(stat((out / "made.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, owner);
}

// 3. Nothing of the wrapper's environment but what --pass-through-env names; its values masked.
TEST(Wrap, TheWrappersEnvironmentReachesTheServerOnlyWhenPassedThrough) {
  const std::string marker = "env-marker-" + std::to_string(getpid());
  TempFolder state("wrapt-state"), logs("wrapt-audit");
  {
    Wrapped wrap({"--state-dir", state.path()}, {"SECRET_TOKEN=" + marker});
    ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
    EXPECT_EQ(answer_text(wrap.call(2, "env", {{"name", "SECRET_TOKEN"}})), "unset");
    json all = wrap.call(3, "env", {{"name", "*"}});
    EXPECT_FALSE(contains(all.dump(), marker)) << all.dump();
    // Nor anything else of the wrapper's: the runner's own PADDOCK_* variables.
    EXPECT_FALSE(contains(answer_text(all), "PADDOCK_BIN")) << answer_text(all);
    EXPECT_FALSE(contains(answer_text(all), "PADDOCK_SOURCE_DIR")) << answer_text(all);
    EXPECT_EQ(wrap.finish(), 0);
  }
  Wrapped wrap({"--state-dir", state.path(), "--pass-through-env", "SECRET_TOKEN", "--audit-values",
                "--audit-log", logs / "audit.jsonl"},
               {"SECRET_TOKEN=" + marker});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  EXPECT_EQ(answer_text(wrap.call(2, "env", {{"name", "SECRET_TOKEN"}})), "value: " + marker);
  wrap.call(3, "echo", {{"token", marker}});
  EXPECT_EQ(wrap.finish(), 0);
  std::string audit = read_file(logs / "audit.jsonl");
  EXPECT_FALSE(contains(audit, marker)) << audit;
  auto lines = audit_lines(logs / "audit.jsonl");
  ASSERT_EQ(lines.size(), 2u) << audit;
  EXPECT_EQ(lines[1]["values"]["token"], "***") << audit;
}

// 4. Only the allowed hosts, through the proxy; without any, no proxy at all.
TEST(Wrap, AHostNotAllowedIsRefused) {
  TempFolder state("wrapt-state");
  {
    Wrapped wrap({"--state-dir", state.path()});
    ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
    json env = json::parse(answer_text(wrap.call(2, "env", {{"name", "*"}})));
    for (const char* name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"}) {
      EXPECT_FALSE(env.contains(name)) << name << " " << env.dump();
    }
    json answer = wrap.call(3, "http_get", {{"url", "http://example.org/"}});
    EXPECT_TRUE(contains(answer_text(answer), "refused: ")) << answer.dump();
    EXPECT_EQ(wrap.finish(), 0);
  }
  Wrapped wrap({"--state-dir", state.path(), "--allow-host", "example.com"});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  json env = json::parse(answer_text(wrap.call(2, "env", {{"name", "*"}})));
  EXPECT_TRUE(env.contains("http_proxy") || env.contains("HTTP_PROXY")) << env.dump();
  for (const std::string url : {"http://example.org/", "https://example.org/"}) {
    // The proxy's refusal, not a network that is not there.
    json answer = wrap.call(3, "http_get", {{"url", url}});
    EXPECT_TRUE(contains(answer_text(answer), "refused: ")) << url << ": " << answer.dump();
    EXPECT_TRUE(contains(answer_text(answer), "403")) << url << ": " << answer.dump();
  }
  EXPECT_EQ(wrap.finish(), 0);
}

// 5. Megabytes of notifications and one line past the bound: the client gets every valid frame,
// and a note for the dropped one. Gives the wrapper's peak resident memory meanwhile, in KiB.
long flood_through_the_wrapper() {
  TempFolder state("wrapt-state");
  Wrapped wrap({"--state-dir", state.path()});
  if (!wrap.initialize().contains("result")) {
    ADD_FAILURE() << "no answer to initialize: " << wrap.stderr_text();
    return 0;
  }
  std::atomic<bool> done{false};
  std::atomic<long> peak{0};
  pid_t wrapper = wrap.client().pid();
  std::thread sampler([&] {
    while (!done) {
      peak = std::max(peak.load(), resident_kib(wrapper));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  json flooded = wrap.call(2, "flood", {{"megabytes", 16}, {"oversized_mib", 17}}, seconds(180));
  json after = wrap.call(3, "echo", {{"after", 1}});
  done = true;
  sampler.join();
  EXPECT_EQ(answer_text(flooded), "flooded 16384") << flooded.dump().substr(0, 400);
  EXPECT_TRUE(contains(answer_text(after), "echo: ")) << after.dump();
  EXPECT_EQ(wrap.client().malformed_lines(), 0u);
  std::size_t valid = 0, notes = 0;
  for (const auto& message : wrap.client().notifications()) {
    const json& data = message["params"]["data"];
    if (data.is_string() && data.get<std::string>() == std::string(1000, 'f')) ++valid;
    if (message["params"].value("level", "") == "error") ++notes;
  }
  EXPECT_EQ(valid, 16384u);
  EXPECT_EQ(notes, 1u);
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
  return peak.load();
}

TEST(Wrap, AFloodingServerGivesABoundedCleanStream) {
  flood_through_the_wrapper();
}

// The same flood, for the wrapper's memory: it holds a frame at most (16 MiB) and the stream's
// state, never the flood. Apart from the stream's test because the sanitized pass
// (scripts/test-sanitizers) leaves it out: ASan's quarantine keeps freed memory resident.
TEST(Wrap, AFloodingServerKeepsTheWrappersMemoryBounded) {
  long peak = flood_through_the_wrapper();
  EXPECT_LT(peak, 128 * 1024) << "KiB";
  RecordProperty("wrapper_peak_rss_kib", std::to_string(peak));
}

// 6. A server that never reads: the client's writes back up, and closing its input still ends
// everything within the grace.
void never_read_then_close(bool sockets) {
  TempFolder state("wrapt-state");
  Wrapped wrap({"--state-dir", state.path()}, {}, {"--never-read"}, sockets);
  for (int i = 0; i < 100 && !contains(wrap.stderr_text(), "never reading"); ++i) usleep(100000);
  std::string line = json{{"jsonrpc", "2.0"},
                          {"method", "notifications/message"},
                          {"params", {{"data", std::string(4000, 'n')}}}}
                         .dump() +
                     "\n";
  std::string data;
  while (data.size() < (8u << 20)) data += line;
  wrap.client().send_for(data, std::chrono::milliseconds(3000));
  auto closed = std::chrono::steady_clock::now();
  int status = wrap.finish(seconds(20));
  auto took = std::chrono::steady_clock::now() - closed;
  EXPECT_NE(status, -1) << wrap.stderr_text();
  EXPECT_LT(took, seconds(8)) << wrap.stderr_text();
}

// Over pipes, and over socketpairs (node's clients), whose end is not POLLHUP.
TEST(Wrap, AServerThatNeverReadsDoesNotHangTheWrapper) {
  for (bool sockets : {false, true}) {
    SCOPED_TRACE(sockets ? "socketpairs" : "pipes");
    never_read_then_close(sockets);
  }
}

// 7. Forks and descriptors without end are refused past the limits; the machine is fine.
TEST(Wrap, ForkAndDescriptorBombsAreRefusedPastTheLimits) {
  TempFolder state("wrapt-state");
  Wrapped wrap({"--state-dir", state.path(), "--pids", "64"});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  json forked = wrap.call(2, "fork", {{"count", 10000}}, seconds(120));
  std::string text = answer_text(forked);
  ASSERT_TRUE(contains(text, "forked ")) << forked.dump();
  EXPECT_TRUE(contains(text, "refused: [Errno 11]")) << text;  // EAGAIN: the pids limit
  EXPECT_LT(std::stol(text.substr(7)), 64) << text;
  json held = wrap.call(3, "hold_fds", {{"count", 10000}}, seconds(120));
  text = answer_text(held);
  ASSERT_TRUE(contains(text, "held ")) << held.dump();
  EXPECT_TRUE(contains(text, "refused: [Errno 24]")) << text;  // EMFILE: the open-file limit
  EXPECT_LT(std::stol(text.substr(5)), 10000) << text;
  // This process can still fork, and the server still answers.
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = -1;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(contains(answer_text(wrap.call(4, "echo")), "echo: "));
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
}

// 8. Half a line, then exit 3: the client gets a clean end, the status, an unanswered call.
TEST(Wrap, AServerThatExitsMidMessageEndsCleanly) {
  TempFolder state("wrapt-state"), logs("wrapt-audit");
  Wrapped wrap({"--state-dir", state.path(), "--audit-log", logs / "audit.jsonl"});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  wrap.client().call(2, "half_exit", json::object());
  EXPECT_TRUE(wrap.client().wait_eof(seconds(30))) << wrap.stderr_text();
  EXPECT_EQ(wrap.client().malformed_lines(), 0u);
  EXPECT_EQ(wrap.client().wait_exit(seconds(15)), 3) << wrap.stderr_text();
  auto lines = audit_lines(logs / "audit.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["wrapped_tool"], "half_exit");
  EXPECT_EQ(lines[0]["outcome"], "unanswered") << lines[0].dump();
}

// Every process below `pid`, a line each (its name, state, and pending, blocked and caught
// signals), for the message of a wrapper that did not end on a signal.
std::string processes_below(pid_t pid) {
  std::map<pid_t, std::string> status_of;
  for (const auto& name : directory_entries("/proc")) {
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    status_of[std::stoi(name)] = read_file("/proc/" + name + "/status");
  }
  auto field = [&](pid_t process, const std::string& key) {
    std::istringstream lines(status_of[process]);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(key)) return line;
    }
    return std::string();
  };
  std::vector<pid_t> below{pid};
  for (std::size_t at = 0; at < below.size(); ++at) {
    for (const auto& [process, status] : status_of) {
      if (field(process, "PPid:") == "PPid:\t" + std::to_string(below[at])) {
        below.push_back(process);
      }
    }
  }
  std::string text;
  for (pid_t process : below) {
    text += std::to_string(process);
    for (const char* key : {"Name:", "State:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigCgt:"}) {
      text += " " + field(process, key);
    }
    text += "\n";
  }
  return text;
}

// 9. SIGTERM, SIGINT and SIGHUP reach the server, whose exit status is the wrapper's.
TEST(Wrap, SignalsArePassedToTheServer) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    TempFolder state("wrapt-state");
    Wrapped wrap({"--state-dir", state.path()});
    ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
    ASSERT_EQ(kill(wrap.client().pid(), sig), 0);
    EXPECT_EQ(wrap.client().wait_exit(seconds(15)), 7)
        << sig << ": " << wrap.stderr_text() << processes_below(wrap.client().pid());
    EXPECT_TRUE(contains(wrap.stderr_text(), "got signal " + std::to_string(sig)))
        << wrap.stderr_text();
  }
}

// The cgroups named after `pid` (runtime/native/cgroup: sandbox-PID-N, paddock-PID).
std::vector<std::string> cgroups_of(pid_t pid) {
  std::vector<std::string> found;
  std::error_code error;
  std::string sandbox = "sandbox-" + std::to_string(pid) + "-";
  std::string own = "paddock-" + std::to_string(pid);
  auto options = std::filesystem::directory_options::skip_permission_denied;
  for (std::filesystem::recursive_directory_iterator it("/sys/fs/cgroup", options, error), end;
       !error && it != end; it.increment(error)) {
    if (it.depth() > 8) it.disable_recursion_pending();
    if (!it->is_directory(error)) continue;
    std::string name = it->path().filename();
    if (name.rfind(sandbox, 0) == 0 || name == own) found.push_back(it->path());
  }
  return found;
}

std::vector<std::string> own_wrap_homes() {
  return own_entries_of_tmp("paddock-wrap-");
}

// 10. Closing stdin ends the server, and nothing is left behind.
TEST(Wrap, ClosingStdinLeavesNothingBehind) {
  const std::string marker = "wrapmark" + std::to_string(getpid());
  const std::string mounts = mounts_but_other_jobs();
  const auto homes = own_wrap_homes();
  Wrapped wrap({"--state-dir", "none"}, {"TMPDIR=/tmp"}, {"--marker", marker});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  pid_t wrapper = wrap.client().pid();
  EXPECT_FALSE(processes_with(marker).empty());
  EXPECT_NE(own_wrap_homes(), homes);  // the temporary home is there while it runs
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
  EXPECT_TRUE(contains(wrap.stderr_text(), "hostile: stdin closed")) << wrap.stderr_text();
  for (int i = 0; i < 50 && !processes_with(marker).empty(); ++i) usleep(20000);
  EXPECT_TRUE(processes_with(marker).empty());
  EXPECT_EQ(own_wrap_homes(), homes);
  EXPECT_EQ(mounts_but_other_jobs(), mounts);
  EXPECT_TRUE(cgroups_of(wrapper).empty());
}

// 11. A denied tool is gone from the list, refused by the wrapper, never seen by the server.
TEST(Wrap, ADeniedToolNeverReachesTheServer) {
  TempFolder state("wrapt-state"), logs("wrapt-audit");
  Wrapped wrap({"--state-dir", state.path(), "--deny-tool", "secret_tool", "--audit-log",
                logs / "audit.jsonl"});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  wrap.client().request(2, "tools/list");
  json listed = wrap.client().wait_for(2);
  ASSERT_TRUE(listed.contains("result")) << listed.dump();
  std::vector<std::string> names;
  for (const auto& tool : listed["result"]["tools"]) names.push_back(tool["name"]);
  EXPECT_EQ(std::count(names.begin(), names.end(), "secret_tool"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "echo"), 1);
  json refused = wrap.call(3, "secret_tool", {{"x", 1}});
  ASSERT_TRUE(refused.contains("error")) << refused.dump();
  EXPECT_TRUE(contains(refused["error"].value("message", ""), "denied")) << refused.dump();
  wrap.call(4, "echo");
  EXPECT_EQ(wrap.finish(), 0);
  EXPECT_TRUE(contains(wrap.stderr_text(), "hostile: call echo")) << wrap.stderr_text();
  EXPECT_FALSE(contains(wrap.stderr_text(), "hostile: call secret_tool")) << wrap.stderr_text();
  auto lines = audit_lines(logs / "audit.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["wrapped_tool"], "secret_tool");
  EXPECT_EQ(lines[0]["outcome"], "denied");
}

// 12. One audit line per call: names and sizes, values only with --audit-values.
TEST(Wrap, EveryCallIsOneAuditLine) {
  TempFolder state("wrapt-state"), logs("wrapt-audit");
  for (bool values : {false, true}) {
    std::string log = logs / (values ? "values.jsonl" : "plain.jsonl");
    std::vector<std::string> flags = {"--state-dir", state.path(),  "--name",
                                      "hostile",     "--audit-log", log};
    if (values) flags.push_back("--audit-values");
    Wrapped wrap(flags);
    ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
    wrap.call(2, "echo", {{"word", "hello-value"}, {"n", 12345}});
    wrap.call(3, "read_file", {{"path", "/etc/shadow"}});
    EXPECT_EQ(wrap.finish(), 0);
    auto lines = audit_lines(log);
    ASSERT_EQ(lines.size(), 2u) << read_file(log);
    for (const auto& line : lines) {
      EXPECT_EQ(line["server"], "hostile") << line.dump();
      EXPECT_TRUE(line.contains("duration_ms")) << line.dump();
      EXPECT_TRUE(line.contains("outcome")) << line.dump();
    }
    EXPECT_EQ(lines[0]["wrapped_tool"], "echo");
    EXPECT_EQ(lines[0]["outcome"], "ok");
    EXPECT_EQ(lines[0]["arguments"], json({{"word", 13}, {"n", 5}})) << lines[0].dump();
    EXPECT_EQ(lines[1]["wrapped_tool"], "read_file");
    EXPECT_EQ(contains(read_file(log), "hello-value"), values) << read_file(log);
    EXPECT_EQ(lines[0].contains("values"), values) << lines[0].dump();
  }
}

// 13. A user profile that is wrong: one line naming the file and the key, and no start.
TEST(Wrap, AWrongProfileStopsBeforeAnythingStarts) {
  TempFolder config("wrapt-config"), state("wrapt-state");
  ASSERT_EQ(mkdir((config / "paddock").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((config / "paddock/servers").c_str(), 0755), 0);
  std::string file = config / "paddock/servers/bad.json";
  struct Case {
    std::string text, key;
  };
  for (const Case& wrong :
       {Case{"{\"description\": \"x\",", "not valid JSON"},
        Case{R"({"description": "x", "limitz": {}})", "limitz"},
        Case{R"({"description": "x", "shares": ["/nonexistent-wrap-test=nope"]})", "shares[0]"}}) {
    write_text(file, wrong.text);
    Wrapped wrap({"--state-dir", state.path(), "--profile", "bad"},
                 {"XDG_CONFIG_HOME=" + config.path()});
    EXPECT_EQ(wrap.finish(), 2) << wrap.stderr_text();
    auto lines = lines_of(wrap.stderr_text());
    ASSERT_EQ(lines.size(), 1u) << wrap.stderr_text();
    EXPECT_TRUE(contains(lines[0], file)) << lines[0];
    EXPECT_TRUE(contains(lines[0], wrong.key)) << lines[0];
    EXPECT_FALSE(std::filesystem::exists(state / "servers")) << "a home was made";
  }
}

// 14. The kept home outlives a start with the same state folder and name; a temporary one not.
TEST(Wrap, TheKeptHomeIsThereOnTheNextStart) {
  const std::string marker = "kept-" + std::to_string(getpid());
  TempFolder state("wrapt-state");
  for (const std::string& dir : {state.path(), std::string("none")}) {
    {
      Wrapped wrap({"--state-dir", dir, "--name", "keeper"});
      ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
      json wrote =
          wrap.call(2, "write_file", {{"path", "/home/server/kept.txt"}, {"content", marker}});
      EXPECT_EQ(answer_text(wrote), "wrote") << wrote.dump();
      EXPECT_EQ(wrap.finish(), 0);
    }
    Wrapped wrap({"--state-dir", dir, "--name", "keeper"});
    ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
    json read = wrap.call(2, "read_file", {{"path", "/home/server/kept.txt"}});
    if (dir == "none") {
      EXPECT_TRUE(contains(answer_text(read), "refused: ")) << read.dump();
    } else {
      EXPECT_EQ(answer_text(read), "read: " + marker) << read.dump();
    }
    EXPECT_EQ(wrap.finish(), 0);
  }
}

// The client's side of the bound: a line that is not JSON and one over 16 MiB are answered with
// JSON-RPC errors by the wrapper, and the next call goes through.
TEST(Wrap, AClientsMalformedOrOversizedFrameIsRefusedAndTheStreamGoesOn) {
  TempFolder state("wrapt-state");
  Wrapped wrap({"--state-dir", state.path()});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  wrap.client().send_line("garbage{");
  wrap.client().send_line(R"({"jsonrpc":"2.0","id":4,"method":"x","params":{"p":")" +
                          std::string(17u << 20, 'o') + R"("}})");
  json after = wrap.call(5, "echo", {{"after", 1}});
  EXPECT_TRUE(contains(answer_text(after), "echo: ")) << after.dump();
  std::vector<int> codes;
  for (const auto& message : wrap.client().notifications()) {
    if (message.contains("error")) codes.push_back(message["error"].value("code", 0));
  }
  EXPECT_EQ(codes, (std::vector<int>{-32700, -32600}));
  EXPECT_EQ(wrap.finish(), 0) << wrap.stderr_text();
}

// 15. The wrapper's exit status is the server's.
TEST(Wrap, TheExitStatusIsTheServers) {
  TempFolder state("wrapt-state");
  Wrapped wrap({"--state-dir", state.path()});
  ASSERT_TRUE(wrap.initialize().contains("result")) << wrap.stderr_text();
  wrap.client().call(2, "exit", {{"code", 5}});
  EXPECT_TRUE(wrap.client().wait_eof(seconds(30)));
  EXPECT_EQ(wrap.client().wait_exit(seconds(15)), 5) << wrap.stderr_text();
}

}  // namespace
}  // namespace paddock::testing::wrap_test
