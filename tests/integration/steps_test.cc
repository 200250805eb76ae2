// Files a sandbox starts with, and commands run before the program in the same sandbox (how a
// language policy compiles and then runs code).

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::testing::steps_test {
namespace {

TEST(Steps, FilesAreInTheWorkDirectoryOwnedByTheSandboxUser) {
  TestSpec spec =
      shell_spec("cat main.txt sub/dir/data.txt; stat -c '%u %a' main.txt run.sh; ./run.sh");
  spec.files = {{"main.txt", "hello\n", 0644},
                {"sub/dir/data.txt", "nested\n", 0644},
                {"run.sh", "#!/bin/sh\necho executable\n", 0755}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "hello\nnested\n1000 644\n1000 755\nexecutable\n")
      << result.stderr_data.data;
}

TEST(Steps, PreludeRunsFirstInTheSameSandbox) {
  TestSpec spec = spec_for({"cat", "built"});
  spec.files = {{"source", "compiled output\n", 0644}};
  spec.prelude = {{"cp", "source", "built"}, {"sh", "-c", "echo step two >&2"}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.step, 2);  // the program itself
  EXPECT_EQ(result.stdout_data.data, "compiled output\n");
  EXPECT_EQ(result.stderr_data.data, "step two\n");
}

TEST(Steps, AFailingPreludeCommandEndsTheRun) {
  TestSpec spec = spec_for({"echo", "never printed"});
  spec.prelude = {{"sh", "-c", "echo 'main.c:1: error' >&2; exit 3"}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kExited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.step, 0);
  EXPECT_EQ(result.stdout_data.data, "");
  EXPECT_EQ(result.stderr_data.data, "main.c:1: error\n");
}

TEST(Steps, AMissingPreludeCommandIsAnExecFailure) {
  TestSpec spec = spec_for({"true"});
  spec.prelude = {{"no-such-compiler-paddock"}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kExecFailed);
  EXPECT_EQ(result.step, 0);
  EXPECT_NE(result.exec_error.find("no-such-compiler-paddock"), std::string::npos);
}

TEST(Steps, SeccompChangesApplyToTheRun) {
  TestSpec spec = shell_spec("mkdir /work/x && echo made || echo refused");
  spec.seccomp_deny = {"mkdir", "mkdirat"};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "refused\n");
  EXPECT_EQ(result.isolation.seccomp_profile, "default -mkdir -mkdirat");
  spec.seccomp_deny.clear();
  EXPECT_EQ(run_ok(spec).stdout_data.data, "made\n");
}

TEST(Steps, LaterStepsAreStillConfined) {
  TestSpec spec = spec_for({"cat", "/proc/self/status"});
  spec.prelude = {{"true"}, {"true"}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_NE(result.stdout_data.data.find("Seccomp:\t2"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("CapEff:\t0000000000000000"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("NoNewPrivs:\t1"), std::string::npos);
}

// An installer that leaves a process behind (a daemon, a watcher) must not reach into the
// program's step: it ran with network, and the program must not inherit anything of it.
TEST(Steps, NothingAnEarlierStepStartedOutlivesIt) {
  TestSpec spec = shell_spec("for p in /proc/[0-9]*; do cat $p/comm; done");
  spec.prelude = {{"sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & sleep 300 & exit 0"},
                  {"true"}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_NE(result.stdout_data.data.find("sh\n"), std::string::npos);  // the listing worked
  EXPECT_EQ(result.stdout_data.data.find("sleep"), std::string::npos) << result.stdout_data.data;
}

}  // namespace
}  // namespace paddock::testing::steps_test
