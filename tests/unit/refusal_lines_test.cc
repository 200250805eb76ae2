// One line per refusal of the sandbox (language/refusal_lines.h): counted ones from the result,
// the rest recognised in the program's output only where the sandbox's rule is the cause.

#include "language/refusal_lines.h"

#include <algorithm>
#include <csignal>

#include <gtest/gtest.h>

#include "runtime/output_capture.h"

namespace paddock::refusal_lines_test {
namespace {

runtime::RunResult with_stderr(const std::string& text, const std::string& network = "none") {
  runtime::RunResult result;
  runtime::capture_chunk(result.stderr_data, text, 1u << 20);
  result.isolation.network = network;
  result.isolation.limits = {"memory.max=536870912", "pids.max=256", "RLIMIT_FSIZE=268435456",
                             "tmpfs_work_bytes=268435456", "tmpfs_tmp_bytes=67108864"};
  return result;
}

std::string all(const runtime::RunResult& result, language::RefusalContext context = {}) {
  std::string text;
  for (const auto& line : language::refusal_lines(result, context)) text += line + "\n";
  return text;
}

TEST(RefusalLines, NothingRefusedSaysNothing) {
  EXPECT_EQ(all(with_stderr("Traceback: ValueError: bad value\n")), "");
}

TEST(RefusalLines, SystemCallsByNameMostFirstInOneLine) {
  runtime::RunResult result = with_stderr("");
  result.refused.system_calls = {{"ptrace", 2}, {"mount", 1}};
  result.refused.system_calls_unnamed = 3;
  std::string text = all(result);
  EXPECT_EQ(text.rfind("refused by the sandbox: ptrace \u00d72, mount \u00d71, 3 other calls (", 0),
            0u)
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  EXPECT_NE(text.find("EPERM"), std::string::npos);
}

TEST(RefusalLines, QuietProbesAreNotSaid) {
  runtime::RunResult result = with_stderr("");
  result.refused.system_calls = {{"mbind", 4, true}, {"ptrace", 1, false}};
  std::string text = all(result);
  EXPECT_EQ(text.rfind("refused by the sandbox: ptrace \u00d71 (", 0), 0u) << text;
  EXPECT_EQ(text.find("mbind"), std::string::npos) << text;
  result.refused.system_calls = {{"mbind", 4, true}, {"get_mempolicy", 1, true}};
  EXPECT_EQ(all(result), "");
}

TEST(RefusalLines, TheProcessLimitWithItsValue) {
  runtime::RunResult result = with_stderr("");
  result.refused.process_limit = 37;
  EXPECT_NE(all(result).find("37 new processes or threads at its limit of 256"), std::string::npos)
      << all(result);
}

TEST(RefusalLines, AFailedForkWhereNoCgroupCountsIt) {
  runtime::RunResult result = with_stderr("sh: 1: Cannot fork\n");
  result.isolation.limits_mode = "rlimit";
  result.isolation.limits.push_back("RLIMIT_NPROC=64");
  EXPECT_NE(all(result).find("a new process or thread, most likely at its limit of 64"),
            std::string::npos)
      << all(result);
  // Where the cgroup counts, its count is the one said.
  result.isolation.limits_mode = "cgroup2";
  EXPECT_EQ(all(result), "");
}

TEST(RefusalLines, NoNetworkIsNamedWithTheFlagThatAllowsAHost) {
  std::string traceback = "socket.gaierror: [Errno -3] Temporary failure in name resolution\n";
  std::string text = all(with_stderr(traceback));
  EXPECT_EQ(text,
            "network: this sandbox has no network, so that name lookup or connection failed. "
            "Only the user can allow a host (paddock mcp --allow-host); tool arguments cannot.\n");
  EXPECT_NE(all(with_stderr(traceback), {.allow_host_hint = "Rerun with --allow-host HOST."})
                .find("failed. Rerun with --allow-host HOST.\n"),
            std::string::npos);
  for (const char* words :
       {"getaddrinfo EAI_AGAIN example.org", "OSError: [Errno 101] Network is unreachable",
        "curl: (6) Could not resolve host: example.org",
        "java.net.UnknownHostException: example.org",
        "dial tcp: lookup example.org: no such host"}) {
    EXPECT_NE(all(with_stderr(words)).find("no network"), std::string::npos) << words;
  }
  // Not where the sandbox has a network, nor where the words are an installer's.
  EXPECT_EQ(all(with_stderr(traceback, "user")), "");
  EXPECT_EQ(
      all(with_stderr(traceback, "none; the program reaches example.org through the egress proxy")),
      "");
  EXPECT_NE(
      all(with_stderr(traceback, "none; the installer reaches pypi.org through the egress proxy"))
          .find("no network"),
      std::string::npos);
  EXPECT_EQ(all(with_stderr(traceback), {.program_output = false}), "");
}

TEST(RefusalLines, AReadOnlyPathIsNamed) {
  std::string text =
      all(with_stderr("OSError: [Errno 30] Read-only file system: '/usr/lib/x.txt'\n"));
  EXPECT_EQ(text,
            "refused by the sandbox: writing '/usr/lib/x.txt' (only /work and /tmp are "
            "writable; write there instead)\n");
  EXPECT_NE(all(with_stderr("touch: cannot touch '/etc/x': Read-only file system\n"))
                .find("writing '/etc/x'"),
            std::string::npos);
  EXPECT_NE(all(with_stderr("sh: 1: cannot create /usr/foo: Read-only file system\n"))
                .find("writing '/usr/foo'"),
            std::string::npos);
  EXPECT_NE(all(with_stderr("Error: EROFS: read-only file system, open '/x'\n"))
                .find("a write to a read-only path"),
            std::string::npos);
}

TEST(RefusalLines, AFullDiskAndTheFileSizeLimit) {
  EXPECT_NE(all(with_stderr("OSError: [Errno 28] No space left on device\n"))
                .find("disk full (/work holds 256 MiB, /tmp 64 MiB"),
            std::string::npos);
  runtime::RunResult big = with_stderr("");
  big.signal = SIGXFSZ;
  EXPECT_NE(all(big).find("a file beyond its size limit of 256 MiB"), std::string::npos);
}

TEST(RefusalLines, MemoryOomKilledOrAnAllocationRefused) {
  runtime::RunResult killed = with_stderr("");
  killed.oom_killed = true;
  EXPECT_NE(all(killed).find("memory beyond its limit of 512 MiB (the kernel's OOM killer"),
            std::string::npos)
      << all(killed);
  EXPECT_NE(all(with_stderr("MemoryError\n")).find("an allocation failed"), std::string::npos);
}

// Issue 55 item 8: a live cell's uncaught error comes apart from its streams, in its traceback;
// its notes are a fresh call's all the same.
TEST(RefusalLines, ALiveCellsErrorIsReadAsTheStreamsAre) {
  runtime::RunResult result = with_stderr("");
  result.cell = runtime::CellReport{};
  EXPECT_EQ(all(result), "");
  result.cell->error = runtime::KernelError{
      "URLError",
      "<urlopen error [Errno -3] Temporary failure in name resolution>",
      {"Traceback (most recent call last):", "  File \"<cell>\", line 1, in <module>",
       "URLError: <urlopen error [Errno -3] Temporary failure in name resolution>"}};
  EXPECT_NE(all(result).find("network: this sandbox has no network"), std::string::npos)
      << all(result);
  result.cell->error = runtime::KernelError{"MemoryError", "", {"MemoryError"}};
  EXPECT_NE(all(result).find("memory beyond its limit of 512 MiB"), std::string::npos)
      << all(result);
  result.cell->error =
      runtime::KernelError{"OSError",
                           "[Errno 30] Read-only file system: '/usr/x'",
                           {"OSError: [Errno 30] Read-only file system: '/usr/x'"}};
  EXPECT_NE(all(result).find("writing '/usr/x'"), std::string::npos) << all(result);
}

TEST(RefusalLines, OutputOfHostileSizeStaysOneLineEach) {
  std::string flood;
  for (int i = 0; i < 20000; ++i) flood += "Read-only file system: '/x" + std::to_string(i) + "'\n";
  auto lines = language::refusal_lines(with_stderr(flood), {});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_LT(lines[0].size(), 400u);
}

}  // namespace
}  // namespace paddock::refusal_lines_test
