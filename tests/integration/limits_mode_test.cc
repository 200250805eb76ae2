// How limits are enforced on the host the tests run on, for real: cgroup v2 where paddock may
// create cgroups, otherwise rlimits, and never silently. (scripts/vm-test covers a pure cgroup v2
// kernel.)

#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "runtime/native/cgroup/cgroup_manager.h"
#include "runtime/native/native_backend.h"
#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::limits_mode_test {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(LimitsMode, ResultSaysHowLimitsWereEnforced) {
  TestSpec spec = spec_for({"true"});
  spec.limits.cpus = 0.5;
  runtime::RunResult result = run_ok(spec);
  const runtime::IsolationReport& report = result.isolation;
  EXPECT_FALSE(report.limits_reason.empty());
  if (cgroup::host_cgroups().usable()) {
    EXPECT_EQ(report.limits_mode, "cgroup2");
    EXPECT_TRUE(contains(report.limits, "cpu.max=50000 100000"));
    EXPECT_FALSE(report.cgroup.empty());
    EXPECT_EQ(access(report.cgroup.c_str(), F_OK), -1);  // removed after the run
  } else {
    EXPECT_EQ(report.limits_mode, "rlimit");
    EXPECT_TRUE(contains(report.limits, "RLIMIT_DATA=" + std::to_string(spec.limits.memory_bytes)));
    EXPECT_TRUE(contains(report.not_enforced, "cpus"));  // never silent
    EXPECT_TRUE(report.cgroup.empty());
  }
}

TEST(LimitsMode, EveryUnenforcedTotalIsNamedWithoutBeingAsked) {
  runtime::RunResult result = run_ok(spec_for({"true"}));  // no --cpus
  if (cgroup::host_cgroups().usable()) {
    EXPECT_TRUE(result.isolation.not_enforced.empty());
  } else {
    EXPECT_EQ(result.isolation.not_enforced, (std::vector<std::string>{"memory", "cpus"}));
  }
}

// What the report says about memory is what the sandbox does: two processes, each well under
// the limit but together over it, both get their memory only where no total is enforced.
TEST(LimitsMode, MemoryTotalHoldsExactlyWhenTheReportSaysSo) {
  TestSpec spec = shell_spec(
      "for i in 1 2; do python3 -c '\n"
      "import sys, time\n"
      "b = bytearray(100 << 20)\n"
      "for i in range(0, len(b), 4096): b[i] = 1\n"
      "print(\"held\", flush=True)\n"
      "time.sleep(2)\n"
      "' & done; wait");
  spec.limits.memory_bytes = 160ull << 20;
  runtime::RunResult result = run_ok(spec);
  const std::string& out = result.stdout_data.data;
  const bool both_held = out == "held\nheld\n";
  if (contains(result.isolation.not_enforced, "memory")) {
    EXPECT_TRUE(both_held) << out << result.stderr_data.data;
  } else {
    EXPECT_FALSE(both_held) << "200 MiB held under a 160 MiB sandbox total";
  }
}

TEST(LimitsMode, RequireCgroupsRefusesTheFallback) {
  TestSpec spec = spec_for({"true"});
  spec.require_cgroups = true;
  native::NativeBackend backend;
  RecordingObserver observer;
  auto result = backend.run(shape_of(spec), plan_of(spec), observer);
  if (cgroup::host_cgroups().usable()) {
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->isolation.limits_mode, "cgroup2");
  } else {
    ASSERT_FALSE(result.ok());
    // The backend names the setting, not a front-end's flag for it (the CLI adds that).
    EXPECT_EQ(result.error().setting, "require_cgroups");
    EXPECT_NE(result.error().message.find("allow the fallback"), std::string::npos);
    EXPECT_NE(result.error().message.find(cgroup::host_cgroups().reason()), std::string::npos);
  }
}

TEST(LimitsMode, CliRefusesWithOneLine) {
  CliResult result = run_cli({"run", "--require-cgroups", "--", "true"});
  if (cgroup::host_cgroups().usable()) {
    EXPECT_EQ(result.exit_status, 0) << result.err;
  } else {
    EXPECT_EQ(result.exit_status, 125);
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find("paddock doctor"), std::string::npos);
    EXPECT_NE(result.err.find("(set by --require-cgroups)"), std::string::npos) << result.err;
  }
}

// The server takes the same setting: with it, no call and no session runs under the rlimit
// fallback; each is refused in one line that names the setting, and the server goes on serving.
TEST(LimitsMode, McpServerRefusesTheFallbackToo) {
  McpProcess server({"--require-cgroups"});
  server.call(1, "execute_code", {{"code", "print(6 * 7)"}});
  McpProcess::json fresh = server.wait_for(1);
  server.call(2, "create_session", McpProcess::json::object());
  McpProcess::json session = server.wait_for(2);
  if (cgroup::host_cgroups().usable()) {
    EXPECT_FALSE(McpProcess::is_tool_error(fresh)) << fresh.dump();
    EXPECT_NE(McpProcess::text_of(fresh).find("42"), std::string::npos) << fresh.dump();
    EXPECT_FALSE(McpProcess::is_tool_error(session)) << session.dump();
    return;
  }
  for (const auto& answer : {fresh, session}) {
    ASSERT_TRUE(McpProcess::is_tool_error(answer)) << answer.dump();
    std::string text = McpProcess::text_of(answer);
    EXPECT_NE(text.find("--require-cgroups"), std::string::npos) << text;
    EXPECT_EQ(text.find("42"), std::string::npos) << text;
  }
  // Still serving: a refusal is one call's, not the server's end.
  server.call(3, "get_supported_languages", McpProcess::json::object());
  EXPECT_FALSE(McpProcess::is_tool_error(server.wait_for(3)));
}

}  // namespace
}  // namespace paddock::testing::limits_mode_test
