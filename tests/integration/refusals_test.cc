// From inside real sandboxes: every system call the seccomp filter refuses is counted by name
// by its supervisor (paddock-init's relay), the program still sees the errno it always saw, and
// with the supervisor gone a refused call stays refused. Refusals that are not system calls
// (the pids limit, the network, read-only paths, a full disk) get their one line too.

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "language/refusal_lines.h"
#include "runtime/native/init/seccomp_notify.h"
#include "runtime/native/seccomp/default_seccomp_bpf.h"
#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::refusals_test {
namespace {

std::map<std::string, std::uint64_t> counted(const runtime::RunResult& result) {
  std::map<std::string, std::uint64_t> calls;
  for (const auto& call : result.refused.system_calls) calls[call.name] = call.count;
  return calls;
}

std::string probe_runs(const std::vector<std::string>& attempts) {
  std::string script;
  for (const auto& attempt : attempts) script += "/probe/paddock_probe try " + attempt + "; ";
  return script;
}

std::string joined_lines(const runtime::RunResult& result) {
  std::string text;
  for (const auto& line : language::refusal_lines(result, language::RefusalContext{}))
    text += line + "\n";
  return text;
}

TEST(RefusedCalls, AreCountedByNameWithTheErrnoUnchanged) {
  for (RunMode mode : {RunMode::kCold, RunMode::kWarm}) {
    TestSpec spec = probe_spec({});
    spec.argv = {"/bin/sh", "-c",
                 probe_runs({"mount", "ptrace_traceme", "ptrace_attach", "keyctl", "clone3"})};
    RecordingObserver observer;
    runtime::RunResult result = run_ok(mode, spec, observer);
    ASSERT_EQ(result.exit_code, 0) << to_string(mode) << ": " << result.stderr_data.data;
    // Exactly what the program saw before there was a supervisor: EPERM, and ENOSYS for clone3.
    EXPECT_EQ(result.stdout_data.data,
              "RESULT mount errno=1\nRESULT ptrace_traceme errno=1\nRESULT ptrace_attach "
              "errno=1\nRESULT keyctl errno=1\nRESULT clone3 errno=38\n")
        << to_string(mode);
    EXPECT_TRUE(result.refused.system_calls_counted) << to_string(mode);
    auto calls = counted(result);
    EXPECT_EQ(calls["mount"], 1u) << to_string(mode);
    EXPECT_EQ(calls["ptrace"], 2u) << to_string(mode);
    EXPECT_EQ(calls["keyctl"], 1u) << to_string(mode);
    // clone3 gets ENOSYS so that libc falls back to clone: no program notices, none is named.
    EXPECT_EQ(calls.count("clone3"), 0u) << to_string(mode);
    EXPECT_EQ(result.refused.system_calls_unnamed, 0u) << to_string(mode);
    std::string lines = joined_lines(result);
    EXPECT_NE(lines.find("refused by the sandbox: ptrace \u00d72"), std::string::npos) << lines;
    EXPECT_NE(lines.find("mount \u00d71"), std::string::npos) << lines;
  }
}

// A call the profile lists as a library's probe (mbind, which numpy's allocator tries on every
// import of pandas) is refused and counted like any other, but is not news after each run: the
// line names only the rest (issue 55: "refused by the sandbox: mbind x1" on every pandas import).
TEST(RefusedCalls, AProbeTheProfileListsIsRefusedAndCountedButNotSaid) {
  TestSpec spec = probe_spec({});
  spec.argv = {"/bin/sh", "-c", probe_runs({"mbind", "mbind", "ptrace_traceme"})};
  RecordingObserver observer;
  runtime::RunResult result = run_ok(RunMode::kCold, spec, observer);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_EQ(result.stdout_data.data,
            "RESULT mbind errno=1\nRESULT mbind errno=1\nRESULT ptrace_traceme errno=1\n");
  auto calls = counted(result);
  EXPECT_EQ(calls["mbind"], 2u);
  EXPECT_EQ(calls["ptrace"], 1u);
  std::string lines = joined_lines(result);
  EXPECT_NE(lines.find("refused by the sandbox: ptrace \u00d71 ("), std::string::npos) << lines;
  EXPECT_EQ(lines.find("mbind"), std::string::npos) << lines;

  spec.argv = {"/bin/sh", "-c", probe_runs({"mbind"})};
  runtime::RunResult only_probe = run_ok(RunMode::kCold, spec, observer);
  EXPECT_EQ(counted(only_probe)["mbind"], 1u);
  EXPECT_EQ(joined_lines(only_probe), "");
}

TEST(RefusedCalls, EveryDeniedClassIsCountedAndNothingAllowedIs) {
  runtime::RunResult result = run_ok(probe_spec({"try", "all"}));
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  std::uint64_t total = result.refused.system_calls_unnamed;
  for (const auto& call : result.refused.system_calls) total += call.count;
  // Each attempt the probe makes that the filter refuses, counted once; the allowed ones
  // (clone_plain, socket_unix, personality_query, fionread) never reach the supervisor.
  std::istringstream lines(result.stdout_data.data);
  std::uint64_t refused = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("errno=1") != std::string::npos) {
      ++refused;
    }
  }
  EXPECT_EQ(total, refused) << result.stdout_data.data;
  // The first kSlots names in the order refused, the rest counted together.
  ASSERT_EQ(result.refused.system_calls.size(), 16u);
  EXPECT_EQ(counted(result)["keyctl"], 1u);
  EXPECT_EQ(counted(result)["fsopen"], 1u);
  EXPECT_EQ(result.refused.system_calls_unnamed, refused - 16);
}

// Rules on arguments: only the refused variant is counted.
TEST(RefusedCalls, OnlyTheRefusedVariantOfACallIsCounted) {
  TestSpec spec = probe_spec({});
  spec.argv = {
      "/bin/sh", "-c",
      probe_runs({"clone_plain", "clone_newuser", "personality_query", "personality_no_aslr",
                  "fionread", "tiocsti", "socket_unix", "socket_alg"})};
  runtime::RunResult result = run_ok(spec);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_EQ(counted(result), (std::map<std::string, std::uint64_t>{
                                 {"clone", 1}, {"personality", 1}, {"ioctl", 1}, {"socket", 1}}))
      << result.stdout_data.data;
}

// The counts start again with each command of a session.
TEST(RefusedCalls, EachCommandOfAWarmSandboxCountsItsOwn) {
  TestSpec spec = probe_spec({});
  spec.argv = {"/bin/sh", "-c", probe_runs({"chroot", "chroot", "chroot"})};
  RecordingObserver first_observer, second_observer;
  runtime::RunResult first = run_ok(RunMode::kWarm, spec, first_observer);
  spec.argv = {"/bin/sh", "-c", probe_runs({"chroot"})};
  runtime::RunResult second = run_ok(RunMode::kWarm, spec, second_observer);
  EXPECT_EQ(counted(first)["chroot"], 3u);
  EXPECT_EQ(counted(second)["chroot"], 1u);
}

// A refused call's outcome in a process under the filter's notify form whose supervisor is gone:
// `body` runs in a child that installs the form, and returns what the call returned and errno.
struct CallOutcome {
  long value = 0;
  int error = 0;
};

std::vector<sock_filter> notify_form() {
  auto program = seccomp::default_bpf();
  std::vector<sock_filter> notify(program.size());
  EXPECT_TRUE(seccomp::to_notify_program(program.data(), program.size(), notify.data()));
  return notify;
}

// Attempts that must fail with the supervisor gone, as the kernel then fails notified calls.
long try_refused(int which) {
  switch (which) {
    case 0:
      return mount("none", "/", "tmpfs", 0, nullptr);
    case 1:
      return syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
    case 2:
      return syscall(SYS_keyctl, 0, 0, 0, 0, 0);
    default:
      return syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */);
  }
}

TEST(RefusedCalls, StayRefusedWhenTheSupervisorClosedItsListener) {
  std::vector<sock_filter> notify = notify_form();
  int results[2];
  ASSERT_EQ(pipe(results), 0);
  pid_t child = fork();
  if (child == 0) {
    close(results[0]);
    sock_fprog program{static_cast<unsigned short>(notify.size()), notify.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
    long listener =
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener < 0) _exit(91);
    close(static_cast<int>(listener));  // nobody will ever answer
    for (int which = 0; which < 4; ++which) {
      CallOutcome outcome{try_refused(which), errno};
      if (write(results[1], &outcome, sizeof outcome) != sizeof outcome) _exit(92);
    }
    CallOutcome allowed{syscall(SYS_getppid), 0};  // allowed calls never depended on it
    if (write(results[1], &allowed, sizeof allowed) != sizeof allowed) _exit(92);
    _exit(0);
  }
  close(results[1]);
  std::vector<CallOutcome> outcomes;
  for (CallOutcome outcome; read(results[0], &outcome, sizeof outcome) == sizeof outcome;) {
    outcomes.push_back(outcome);
  }
  close(results[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  ASSERT_EQ(outcomes.size(), 5u);
  for (int which = 0; which < 4; ++which) {
    EXPECT_EQ(outcomes[which].value, -1) << "attempt " << which;
    EXPECT_EQ(outcomes[which].error, ENOSYS) << "attempt " << which;
  }
  EXPECT_EQ(outcomes[4].value, getpid());
}

// The supervisor dies while a refused call waits for its answer: the call fails then.
TEST(RefusedCalls, StayRefusedWhenTheSupervisorDiesMidCall) {
  std::vector<sock_filter> notify = notify_form();
  int results[2];
  ASSERT_EQ(pipe(results), 0);
  pid_t supervisor = fork();
  if (supervisor == 0) {
    close(results[0]);
    sock_fprog program{static_cast<unsigned short>(notify.size()), notify.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
    long listener =
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener < 0) _exit(91);
    pid_t caller = fork();
    if (caller == 0) {
      close(static_cast<int>(listener));
      CallOutcome outcome{try_refused(0), errno};
      _exit(write(results[1], &outcome, sizeof outcome) == sizeof outcome ? 0 : 92);
    }
    // The call is waiting on this listener; leave without ever answering it.
    pollfd waiting{static_cast<int>(listener), POLLIN, 0};
    _exit(poll(&waiting, 1, 120000) == 1 ? 0 : 93);
  }
  close(results[1]);
  CallOutcome outcome{};
  ssize_t got = read(results[0], &outcome, sizeof outcome);
  close(results[0]);
  int status = 0;
  ASSERT_EQ(waitpid(supervisor, &status, 0), supervisor);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof outcome));
  EXPECT_EQ(outcome.value, -1);
  EXPECT_EQ(outcome.error, ENOSYS);
}

// Reads the cgroup of paddock-init (the relay, which supervises the filter) while it runs.
class CgroupObserver : public RecordingObserver {
 public:
  void on_started(int pid) override {
    RecordingObserver::on_started(pid);
    relay_cgroup = read_file("/proc/" + std::to_string(pid) + "/cgroup");
  }
  std::string relay_cgroup;
};

// A flood of refused calls is answered inside the sandbox: every one counted, by a supervisor
// that lives in the sandbox's own cgroup, so that its CPU time is the sandbox's.
TEST(RefusedCalls, AFloodIsCountedExactlyAndChargedToTheSandbox) {
  TestSpec spec = spec_for(
      {"python3", "-c",
       "import ctypes\n"
       "libc = ctypes.CDLL(None, use_errno=True)\n"
       "failed = sum(1 for _ in range(100000) if libc.mount(b'n', b'/', b't', 0, None) != 0)\n"
       "print(failed, ctypes.get_errno())\n"});
  spec.limits.wall_seconds = 300;
  CgroupObserver observer;
  auto started = std::chrono::steady_clock::now();
  runtime::RunResult result = run_ok(RunMode::kCold, spec, observer);
  auto took = std::chrono::steady_clock::now() - started;
  std::cerr << "100000 refused calls: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms, "
            << result.cpu_ms << " ms of the sandbox's CPU\n";
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_EQ(result.stdout_data.data, "100000 1\n");
  EXPECT_EQ(counted(result)["mount"], 100000u);
  if (result.isolation.limits_mode == "cgroup2") {
    // "0::/path": the sandbox's cgroup directory ends with that path.
    std::string path = observer.relay_cgroup.substr(observer.relay_cgroup.find("::") + 2);
    while (!path.empty() && path.back() == '\n') path.pop_back();
    ASSERT_FALSE(path.empty()) << observer.relay_cgroup;
    EXPECT_TRUE(result.isolation.cgroup.ends_with(path))
        << observer.relay_cgroup << " vs " << result.isolation.cgroup;
  }
}

TEST(RefusalLines, NameTheNetworkOfASandboxWithout) {
  runtime::RunResult result = run_ok(
      spec_for({"python3", "-c", "import socket\nsocket.getaddrinfo('example.org', 443)\n"}));
  EXPECT_NE(result.exit_code, 0);
  std::string lines = joined_lines(result);
  EXPECT_NE(lines.find("network: this sandbox has no network"), std::string::npos)
      << result.stderr_data.data << "\n"
      << lines;
  EXPECT_NE(lines.find("paddock mcp --allow-host"), std::string::npos) << lines;
}

TEST(RefusalLines, NameAWriteToAReadOnlyPath) {
  runtime::RunResult result =
      run_ok(spec_for({"python3", "-c", "open('/usr/paddock-test', 'w')\n"}));
  EXPECT_NE(result.exit_code, 0);
  std::string lines = joined_lines(result);
  EXPECT_NE(lines.find("refused by the sandbox: writing '/usr/paddock-test'"), std::string::npos)
      << result.stderr_data.data << "\n"
      << lines;
}

TEST(RefusalLines, NameAFullWorkDirectory) {
  TestSpec spec = shell_spec("head -c 8000000 /dev/zero > /work/big; echo done");
  spec.limits.work_bytes = 4 << 20;
  runtime::RunResult result = run_ok(spec);
  std::string lines = joined_lines(result);
  EXPECT_NE(lines.find("refused by the sandbox: disk full (/work holds 4 MiB"), std::string::npos)
      << result.stderr_data.data << "\n"
      << lines;
}

TEST(RefusalLines, NameTheProcessLimitWhereTheCgroupCountsIt) {
  TestSpec spec = shell_spec("i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done; echo done");
  spec.limits.pids = 16;
  runtime::RunResult result = run_ok(spec);
  std::string lines = joined_lines(result);
  if (result.isolation.limits_mode == "cgroup2") {
    EXPECT_GT(result.refused.process_limit, 0u) << result.stderr_data.data;
    EXPECT_NE(lines.find("or threads at its limit of 16"), std::string::npos) << lines;
  } else {
    // rlimit mode has no counter of refused forks: the shell's own words are recognised.
    EXPECT_EQ(result.refused.process_limit, 0u);
    EXPECT_NE(lines.find("a new process or thread, most likely at its limit of 16"),
              std::string::npos)
        << result.stderr_data.data << "\n"
        << lines;
  }
}

// Through the MCP server, fresh, warm and in a session: the line in the text, the object in
// structuredContent; and a flood in one call leaves the server answering the next.
TEST(RefusedCallsOverMcp, AreOneLineAndAnObjectAndAFloodLeavesTheServerAnswering) {
  using json = nlohmann::json;
  McpProcess server;
  const std::string chroot =
      "import os\ntry:\n    os.chroot('/tmp')\nexcept OSError as e:\n    print(e.errno)\n";
  server.call(1, "execute_code", {{"code", chroot}});
  json fresh = server.wait_for(1)["result"];
  EXPECT_EQ(fresh["structuredContent"]["stdout"], "1\n") << fresh.dump();
  EXPECT_EQ(fresh["structuredContent"]["refused"]["system_calls"]["chroot"], 1) << fresh.dump();
  std::string text = fresh["content"][0]["text"];
  EXPECT_NE(text.find("refused by the sandbox: chroot \u00d71 ("), std::string::npos) << text;

  // A session without a live interpreter: its calls are commands, each counted (a live
  // interpreter's cells are not: docs/security.md).
  server.call(2, "create_session", {{"live", false}});
  std::string session = server.wait_for(2)["result"]["structuredContent"]["session_id"];
  server.call(3, "execute_code",
              {{"session_id", session},
               {"code",
                "import os\nfor _ in range(100000):\n    try:\n        "
                "os.chroot('/tmp')\n    except OSError:\n        pass\nprint('done')\n"}});
  server.call(4, "execute_code", {{"code", "print(6 * 7)"}});
  json quick = server.wait_for(4)["result"];
  EXPECT_EQ(quick["structuredContent"]["stdout"], "42\n");
  EXPECT_FALSE(quick["structuredContent"].contains("refused")) << quick.dump();
  json flood = server.wait_for(3)["result"];
  EXPECT_EQ(flood["structuredContent"]["stdout"], "done\n") << flood.dump();
  EXPECT_EQ(flood["structuredContent"]["refused"]["system_calls"]["chroot"], 100000);
  // The session's next command counts its own.
  server.call(5, "execute_code", {{"session_id", session}, {"code", chroot}});
  EXPECT_EQ(server.wait_for(5)["result"]["structuredContent"]["refused"]["system_calls"]["chroot"],
            1);
}

// Issue 55 item 8: every note a fresh call gets, a live cell gets. The same three failures, in
// a fresh call and in a live python session's cell of the same server: the same lines.
TEST(RefusalLines, ALiveCellGetsEveryNoteAFreshCallGets) {
  using json = nlohmann::json;
  McpProcess server;
  json created;
  std::string session = server.open_session(1, {{"live", true}}, &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  ASSERT_TRUE(created["result"]["structuredContent"].value("live", false)) << created.dump();
  struct Case {
    const char* code;
    const char* note;
  };
  const Case cases[] = {
      {"import urllib.request\nurllib.request.urlopen('http://example.org', timeout=5)\n",
       "network: this sandbox has no network"},
      {"x = bytearray(1 << 40)\n", "refused by the sandbox: memory beyond its limit of "},
      {"open('/usr/paddock-live-test', 'w')\n",
       "refused by the sandbox: writing '/usr/paddock-live-test'"},
  };
  int id = 2;
  for (const Case& each : cases) {
    server.call(id, "execute_code", {{"language", "python"}, {"code", each.code}});
    json fresh = server.wait_for(id++, std::chrono::seconds(120));
    server.call(id, "execute_code", {{"session_id", session}, {"code", each.code}});
    json live = server.wait_for(id++, std::chrono::seconds(120));
    std::string fresh_text = McpProcess::text_of(fresh);
    std::string live_text = McpProcess::text_of(live);
    EXPECT_NE(fresh_text.find(each.note), std::string::npos) << fresh.dump();
    EXPECT_NE(live_text.find(each.note), std::string::npos) << live.dump();
    // The whole line, limit and hint included, is the same in both.
    auto line_of = [&](const std::string& text) {
      auto at = text.find(each.note);
      return at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
    };
    EXPECT_EQ(line_of(live_text), line_of(fresh_text));
  }
}

}  // namespace
}  // namespace paddock::testing::refusals_test
