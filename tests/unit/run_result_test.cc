#include "runtime/run_result.h"

#include <csignal>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace paddock::run_result_test {
namespace {

TEST(RunResult, CliExitStatusFollowsConventions) {
  runtime::RunResult result;
  result.exit_code = 3;
  EXPECT_EQ(runtime::cli_exit_status(result), 3);
  result.outcome = runtime::Outcome::kTimedOut;
  EXPECT_EQ(runtime::cli_exit_status(result), 124);
  result.outcome = runtime::Outcome::kSignaled;
  result.signal = SIGSEGV;
  EXPECT_EQ(runtime::cli_exit_status(result), 128 + SIGSEGV);
  result.outcome = runtime::Outcome::kExecFailed;
  result.exit_code = 127;
  EXPECT_EQ(runtime::cli_exit_status(result), 127);
}

TEST(RunResult, JsonCarriesEveryField) {
  runtime::RunResult result;
  result.stdout_data = {"out", true, 99, 3};  // the start kept, the other 96 bytes dropped
  result.stderr_data = {"err", false, 3};
  result.duration_ms = 12;
  result.cpu_ms = 5;
  result.max_rss_kb = 2048;
  result.backend = "native";
  result.isolation.limits_mode = "rlimit";
  result.isolation.seccomp = true;
  nlohmann::json json = runtime::to_json(result);
  EXPECT_EQ(json["outcome"], "exited");
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_EQ(json["timed_out"], false);
  EXPECT_EQ(json["stdout"], "out\n[... 96 bytes left out here, of 99 ...]\n");
  EXPECT_EQ(json["stdout_truncated"], true);
  EXPECT_EQ(json["stdout_bytes"], 99);
  EXPECT_EQ(json["stderr"], "err");
  EXPECT_EQ(json["duration_ms"], 12);
  EXPECT_EQ(json["cpu_ms"], 5);
  EXPECT_EQ(json["max_rss_kb"], 2048);
  EXPECT_EQ(json["backend"], "native");
  EXPECT_EQ(json["limits_mode"], "rlimit");
  EXPECT_EQ(json["isolation"]["seccomp"], true);
  EXPECT_FALSE(json.contains("exec_error"));
  EXPECT_EQ(json["artifacts_omitted"], nlohmann::json::array());
  result.artifacts_omitted.push_back({"outputs/big.csv", 9, "over the limit of 8 bytes per call"});
  EXPECT_EQ(runtime::to_json(result)["artifacts_omitted"][0]["reason"],
            "over the limit of 8 bytes per call");
}

TEST(RunResult, TimedOutJsonSaysSo) {
  runtime::RunResult result;
  result.outcome = runtime::Outcome::kTimedOut;
  result.signal = SIGKILL;
  nlohmann::json json = runtime::to_json(result);
  EXPECT_EQ(json["timed_out"], true);
  EXPECT_EQ(json["exit_code"], 124);
  EXPECT_EQ(json["signal"], SIGKILL);
  EXPECT_EQ(json["outcome"], "timed_out");
}

}  // namespace
}  // namespace paddock::run_result_test
