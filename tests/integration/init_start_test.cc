// paddock-init is started once for every sandbox, so its start-up is paid on every run. glibc's,
// even in a static program, asks the CPU what it is with dozens of CPUID instructions before
// main, and in a virtual machine every CPUID traps to the hypervisor. paddock-init is built so
// that it asks nothing (runtime/native/init/CMakeLists.txt). This test steps through paddock-init
// one instruction at a time, from its exec to its exit, and looks at every instruction.

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/native/init_program.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/temp_folder.h"

namespace paddock::init_start_test {
namespace {

struct Trace {
  long instructions = 0;
  long cpuid = 0;      // CPUID instructions executed
  int exit_code = -1;  // paddock-init's, if it exited
  bool finished = false;
};

// paddock-init with no environment: it starts (its C library's start-up, then main) and, given
// no plan, exits 125 at once. Every instruction it executes on the way is looked at.
Trace trace_init_start() {
  Trace trace;
  auto program = native::open_init_program();
  EXPECT_TRUE(program.ok()) << program.error().message;
  if (!program.ok()) return trace;
  pid_t child = fork();
  if (child == 0) {
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(90);
    char* argv[] = {const_cast<char*>("paddock-init"), nullptr};
    char* envp[] = {nullptr};
    syscall(SYS_execveat, program->get(), "", argv, envp, AT_EMPTY_PATH);
    _exit(91);
  }
  int status = 0;
  // Stopped by the exec's SIGTRAP, before paddock-init's first instruction.
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSTOPPED(status)) << "status " << status;
  // Far more than any start-up takes: a bound, not an expectation.
  constexpr long kMaxInstructions = 20'000'000;
  while (WIFSTOPPED(status) && trace.instructions < kMaxInstructions) {
    user_regs_struct registers{};
    if (ptrace(PTRACE_GETREGS, child, nullptr, &registers) != 0) break;
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, child, reinterpret_cast<void*>(registers.rip), nullptr);
    if (errno == 0 && (static_cast<std::uint64_t>(word) & 0xffff) == 0xa20f) ++trace.cpuid;
    ++trace.instructions;
    if (ptrace(PTRACE_SINGLESTEP, child, nullptr, nullptr) != 0) break;
    if (waitpid(child, &status, 0) != child) break;
  }
  if (WIFEXITED(status)) {
    trace.finished = true;
    trace.exit_code = WEXITSTATUS(status);
  } else {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  return trace;
}

TEST(InitStart, PaddockInitStartsWithoutAskingTheCpuWhatItIs) {
  Trace trace = trace_init_start();
  ASSERT_TRUE(trace.finished) << "paddock-init did not exit after " << trace.instructions
                              << " instructions";
  EXPECT_EQ(trace.exit_code, 125);  // no plan: it did start, and refused at once
  EXPECT_EQ(trace.cpuid, 0) << "paddock-init executed " << trace.cpuid << " CPUID instructions in "
                            << trace.instructions << " from its exec to its exit";
  std::printf("paddock-init: %ld instructions from exec to exit, %ld of them CPUID\n",
              trace.instructions, trace.cpuid);
}

// Under a caller's seccomp profile, init runs under that profile plus the calls it declares
// (init_calls in prepared_run.cc), so its C library must make those calls and no others: musl's
// open() is the open system call, where glibc's is openat. A profile without open, which no
// program built with glibc notices, must not stop init from starting a compile step.
TEST(InitStart, UnderACallersProfileInitMakesOnlyTheCallsItDeclares) {
  testing::TempFolder folder("init-calls");
  std::ifstream source(testing::source_dir() + "/policies/seccomp/default.json");
  nlohmann::json profile = nlohmann::json::parse(source);
  int removed = 0;
  for (auto& rule : profile["syscalls"]) {
    auto& names = rule["names"];
    for (auto name = names.begin(); name != names.end();) {
      if (*name == "open") {
        name = names.erase(name);
        ++removed;
      } else {
        ++name;
      }
    }
  }
  ASSERT_EQ(removed, 1) << "the default profile allows open once";
  std::ofstream(folder / "profile.json") << profile.dump();
  std::ofstream(folder / "main.c")
      << "#include <stdio.h>\nint main(void) { puts(\"compiled\"); }\n";
  // Two steps: the compile (init opens /dev/null as its stdin), then the program.
  auto result = testing::run_cli(
      {"run", "--seccomp-profile", folder / "profile.json", "--lang", "c", folder / "main.c"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "compiled\n") << result.err;
}

// The CPUs a process may use, as the kernel lists them ("0-1").
std::string cpus_allowed(const std::string& status) {
  auto at = status.find("Cpus_allowed_list:");
  if (at == std::string::npos) return "";
  auto start = status.find_first_not_of(" \t", at + sizeof "Cpus_allowed_list:" - 1);
  return status.substr(start, status.find('\n', start) - start);
}

// The relay moves off init's CPU while it makes the network namespace (child.cc, CpuStepAside).
// That must change nobody's CPUs for good: the program may use every CPU paddock may, also when
// paddock was given one only, and the relay takes its own back.
TEST(InitStart, TheRelayStepsAsideAndEveryProcessKeepsTheCpusPaddockWasGiven) {
  std::string ours = cpus_allowed(testing::read_file("/proc/self/status"));
  ASSERT_FALSE(ours.empty());
  auto all = testing::run_cli({"run", "--", "cat", "/proc/self/status"});
  ASSERT_EQ(all.exit_status, 0) << all.err;
  EXPECT_EQ(cpus_allowed(all.out), ours);
  std::string first = ours.substr(0, ours.find_first_of(",-"));
  auto one = testing::run_program({"/usr/bin/taskset", "-c", first, testing::paddock_binary(),
                                   "run", "--", "cat", "/proc/self/status"});
  ASSERT_EQ(one.exit_status, 0) << one.err;
  EXPECT_EQ(cpus_allowed(one.out), first);

  testing::TempFolder folder("relay-cpus");
  testing::Server paddock({testing::paddock_binary(), "run", "--", "sleep", "30"}, folder / "log");
  std::string relay;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto relays = testing::sandboxes_of(paddock.pid());
    if (!relays.empty()) {
      relay = cpus_allowed(testing::read_file("/proc/" + std::to_string(relays[0]) + "/status"));
      if (relay == ours) break;  // it stepped aside, if it did, and is back
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(relay, ours) << paddock.log();
}

}  // namespace
}  // namespace paddock::init_start_test
