// From inside real sandboxes: every denied class of system call fails, and it is the seccomp
// filter that refuses it (not merely a missing capability).

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"

namespace paddock::testing::seccomp_test {
namespace {

// What the probe printed: attempt name -> "ok" or "errno=N".
std::map<std::string, std::string> probe_results(const runtime::RunResult& result) {
  std::map<std::string, std::string> results;
  std::istringstream lines(result.stdout_data.data);
  std::string word, name, outcome;
  while (lines >> word >> name >> outcome) {
    if (word == "RESULT") results[name] = outcome;
  }
  return results;
}

const std::vector<std::string>& denied_attempts() {
  static const std::vector<std::string> kDenied = {
      "keyctl",
      "add_key",
      "request_key",
      "bpf",
      "perf_event_open",
      "userfaultfd",
      "io_uring_setup",
      "kexec_load",
      "init_module",
      "finit_module",
      "delete_module",
      "mount",
      "umount2",
      "pivot_root",
      "move_mount",
      "fsopen",
      "open_tree",
      "unshare_user",
      "unshare_net",
      "setns",
      "clone_newuser",
      "clone_newns",
      "ptrace_traceme",
      "ptrace_attach",
      "process_vm_readv",
      "process_vm_writev",
      "tiocsti",
      "tiocsti_high_bits",
      "tioclinux",
      "socket_alg",
      "socket_alg_high_bits",
      "socket_vsock",
      "personality_no_aslr",
      "chroot",
  };
  return kDenied;
}

TEST(SeccompInSandbox, EveryDeniedClassFailsWithEperm) {
  runtime::RunResult result = run_ok(probe_spec({"try", "all"}));
  ASSERT_EQ(result.exit_code, 0) << result.stderr_data.data;
  auto results = probe_results(result);
  for (const auto& name : denied_attempts()) {
    EXPECT_EQ(results[name], "errno=1") << name;  // EPERM
  }
  EXPECT_EQ(results["clone3"], "errno=38");  // ENOSYS, so libc falls back to clone(2)
  // What must keep working, or the profile is useless.
  EXPECT_EQ(results["clone_plain"], "ok");
  EXPECT_EQ(results["socket_unix"], "ok");
  EXPECT_EQ(results["personality_query"], "ok");
  EXPECT_EQ(results["fionread"], "errno=25");  // ENOTTY from the kernel: the filter let it by
}

// The same attempts under the default profile with a distinctive errno, proving that each one
// is stopped by the filter itself: without seccomp, mount or ptrace would also fail, but with
// EPERM or EACCES from the kernel, never with this errno.
TEST(SeccompInSandbox, TheFilterItselfRefusesEachClass) {
  constexpr int kMarker = 199;
  nlohmann::json profile =
      nlohmann::json::parse(read_file(source_dir() + "/policies/seccomp/default.json"));
  profile["defaultErrnoRet"] = kMarker;
  std::string path =
      ::testing::TempDir() + "/paddock-marker-profile-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << profile.dump();

  TestSpec spec = probe_spec({"try", "all"});
  spec.seccomp_profile_path = path;
  runtime::RunResult result = run_ok(spec);
  std::remove(path.c_str());
  auto results = probe_results(result);
  for (const auto& name : denied_attempts()) {
    EXPECT_EQ(results[name], "errno=" + std::to_string(kMarker)) << name;
  }
  EXPECT_EQ(results["clone_plain"], "ok");
  EXPECT_EQ(result.isolation.seccomp_profile, path);
}

// How the probe's attempt ends outside any sandbox: 0 when the call went through, or the signal.
int unsandboxed_outcome(const char* attempt) {
  pid_t child = fork();
  if (child == 0) {
    execl(probe_binary().c_str(), "paddock_probe", "try", attempt, nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

TEST(SeccompInSandbox, OtherSystemCallAbisKillTheProcess) {
  for (const char* attempt : {"x32", "int80"}) {
    // A kernel built without the 32-bit ABI (IA32_EMULATION off, as some cloud kernels are)
    // answers int 0x80 with a general protection fault before seccomp sees it: the ABI is not
    // there to escape through, and the sandbox must end the same way. Where the ABI exists, it
    // is the filter that kills.
    int outside = unsandboxed_outcome(attempt);
    int expected = outside == SIGSEGV ? SIGSEGV : SIGSYS;
    runtime::RunResult result = run_ok(probe_spec({"try", attempt}));
    EXPECT_EQ(result.outcome, runtime::Outcome::kSignaled)
        << attempt << ": " << result.stdout_data.data;
    EXPECT_EQ(result.signal, expected)
        << attempt << " (outside a sandbox: signal " << outside << ")";
    EXPECT_EQ(result.exit_code, 128 + expected) << attempt;
  }
}

// A profile that refuses fork is the program's, not init's: init still starts the program (its
// own filter adds the calls it needs), and the program, which stacks the profile on top, cannot
// fork.
TEST(SeccompInSandbox, AProfileThatRefusesForkBindsTheProgramNotInit) {
  TestSpec spec = shell_spec("echo started; /bin/true && echo FORKED; exit 0");
  spec.seccomp_deny = {"clone", "clone3", "fork", "vfork"};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.outcome, runtime::Outcome::kExited) << result.stderr_data.data;
  EXPECT_EQ(result.stdout_data.data, "started\n") << result.stderr_data.data;
  EXPECT_NE(result.stderr_data.data.find("fork"), std::string::npos) << result.stderr_data.data;
}

TEST(SeccompInSandbox, RealProgramsStillWork) {
  runtime::RunResult result = run_ok(spec_for(
      {"python3", "-c",
       "import threading, subprocess, tempfile, multiprocessing, os\n"
       "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
       "print(subprocess.run(['echo', 'child'], capture_output=True, text=True).stdout.strip())\n"
       "with multiprocessing.Pool(2) as p: print(sum(p.map(abs, [-1, -2, 3])))\n"
       "with tempfile.NamedTemporaryFile() as f: f.write(b'x'); print('tmp ok')\n"}));
  EXPECT_EQ(result.stdout_data.data, "child\n6\ntmp ok\n") << result.stderr_data.data;
}

}  // namespace
}  // namespace paddock::testing::seccomp_test
