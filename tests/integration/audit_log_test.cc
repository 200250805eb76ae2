// The audit log (--audit-log) is opened as the server user's own regular file and nothing else:
// a symlink, a hard link or a FIFO planted where it goes (a shared folder, which sandboxed code
// may write) is refused with one line, instead of making the server append to, create, or hang
// on whatever it leads to (issue 36, item 13).

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/temp_folder.h"

namespace paddock::testing::audit_log_test {
namespace {

// `paddock mcp --audit-log path` with no client: it opens the log, reads end of input and exits.
// Bounded, so that a server that hangs on the path fails the test instead of stalling it.
CliResult serve_with_audit_log(const std::string& path) {
  return run_program({"/usr/bin/timeout", "20", paddock_binary(), "mcp", "--audit-log", path});
}

void expect_refused_in_one_line(const CliResult& served, const std::string& why) {
  EXPECT_EQ(served.exit_status, 2) << served.err;
  EXPECT_EQ(std::count(served.err.begin(), served.err.end(), '\n'), 1) << served.err;
  EXPECT_NE(served.err.find("audit log"), std::string::npos) << served.err;
  EXPECT_NE(served.err.find(why), std::string::npos) << served.err;
}

TEST(AuditLog, APlantedSymlinkIsRefusedAndNothingIsWrittenThroughIt) {
  TempFolder shared("audit-symlink");
  TempFolder elsewhere("audit-victim");
  std::string victim = elsewhere / "victim";
  std::ofstream(victim) << "untouched\n";
  ASSERT_EQ(symlink(victim.c_str(), (shared / "audit.jsonl").c_str()), 0);
  ASSERT_EQ(symlink((elsewhere / "created").c_str(), (shared / "dangling.jsonl").c_str()), 0);

  expect_refused_in_one_line(serve_with_audit_log(shared / "audit.jsonl"), "symlink");
  EXPECT_EQ(read_file(victim), "untouched\n");
  expect_refused_in_one_line(serve_with_audit_log(shared / "dangling.jsonl"), "symlink");
  EXPECT_FALSE(std::filesystem::exists(elsewhere / "created"));
}

TEST(AuditLog, AHardLinkIsRefused) {
  TempFolder shared("audit-hardlink");
  std::string victim = shared / "victim";
  std::ofstream(victim) << "untouched\n";
  ASSERT_EQ(link(victim.c_str(), (shared / "audit.jsonl").c_str()), 0);
  expect_refused_in_one_line(serve_with_audit_log(shared / "audit.jsonl"), "hard link");
  EXPECT_EQ(read_file(victim), "untouched\n");
}

TEST(AuditLog, AFifoIsRefusedWithoutHanging) {
  TempFolder shared("audit-fifo");
  ASSERT_EQ(mkfifo((shared / "audit.jsonl").c_str(), 0600), 0);
  expect_refused_in_one_line(serve_with_audit_log(shared / "audit.jsonl"), "not a regular file");
}

// Root only can give a file away; as a user, the same test checks the file of someone else that
// a user can always meet: root's.
TEST(AuditLog, AFileOfAnotherUserIsRefused) {
  TempFolder shared("audit-foreign");
  std::string path = shared / "audit.jsonl";
  std::ofstream(path) << "";
  uid_t other = geteuid() == 0 ? 65534 : 0;
  if (geteuid() == 0) {
    ASSERT_EQ(chown(path.c_str(), other, other), 0);
    ASSERT_EQ(chmod(path.c_str(), 0666), 0);
    expect_refused_in_one_line(serve_with_audit_log(path), "owned by uid 65534");
  } else {
    expect_refused_in_one_line(serve_with_audit_log("/etc/hostname"), "/etc/hostname");
  }
  EXPECT_EQ(read_file(path), "");
}

TEST(AuditLog, ANewLogIsCreatedForItsUserAlone) {
  TempFolder folder("audit-new");
  std::string path = folder / "audit.jsonl";
  CliResult served = serve_with_audit_log(path);
  EXPECT_EQ(served.exit_status, 0) << served.err;
  struct stat info {};
  ASSERT_EQ(lstat(path.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(info.st_uid, geteuid());
  // Opened again, as a server restarted on the same log is.
  EXPECT_EQ(serve_with_audit_log(path).exit_status, 0);
}

// The log's lines, parsed.
std::vector<nlohmann::json> audit_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// `paddock run` passes the same gate as execute_code (app/code_gate.h): one line per run, for
// code that ran, code that screening blocked, and a plain command, with a hash and never the
// code or the command itself.
TEST(AuditLog, EveryRunOfPaddockRunIsOneLine) {
  TempFolder folder("audit-run");
  std::string path = folder / "audit.jsonl";
  CliResult ran =
      run_cli({"run", "--audit-log", path, "--lang", "python", "--code", "print('ran-marker')"});
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  CliResult blocked = run_cli({"run", "--audit-log", path, "--screening", "enforce", "--lang",
                               "python", "--code", "import os; os.system('blocked-marker')"});
  EXPECT_EQ(blocked.exit_status, 126) << blocked.err;
  CliResult command =
      run_cli({"run", "--audit-log", path, "--", "sh", "-c", "exit 3", "command-marker"});
  EXPECT_EQ(command.exit_status, 3) << command.err;

  auto lines = audit_lines(path);
  ASSERT_EQ(lines.size(), 3u) << read_file(path);
  EXPECT_EQ(lines[0]["tool"], "run");
  EXPECT_EQ(lines[0]["language"], "python");
  EXPECT_EQ(lines[0]["outcome"], "exited");
  EXPECT_EQ(lines[0]["exit_code"], 0);
  EXPECT_EQ(lines[0]["code_sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(lines[1]["outcome"], "blocked");
  EXPECT_EQ(lines[1]["language"], "python");
  EXPECT_EQ(lines[2]["language"], "");
  EXPECT_EQ(lines[2]["outcome"], "exited");
  EXPECT_EQ(lines[2]["exit_code"], 3);
  EXPECT_NE(lines[2]["code_sha256"], lines[0]["code_sha256"]);
  std::string log = read_file(path);
  for (const char* marker : {"ran-marker", "blocked-marker", "command-marker"}) {
    EXPECT_EQ(log.find(marker), std::string::npos) << marker;
  }
}

// The run's log is opened as the server's is, before anything runs: a planted symlink stops the
// run with one line, and nothing is written through it.
TEST(AuditLog, PaddockRunRefusesAPlantedSymlinkBeforeRunning) {
  TempFolder shared("audit-run-symlink");
  TempFolder elsewhere("audit-run-victim");
  std::string victim = elsewhere / "victim";
  std::ofstream(victim) << "untouched\n";
  ASSERT_EQ(symlink(victim.c_str(), (shared / "audit.jsonl").c_str()), 0);
  CliResult refused =
      run_cli({"run", "--audit-log", shared / "audit.jsonl", "--", "sh", "-c", "echo ran"});
  EXPECT_EQ(refused.exit_status, 125) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("symlink"), std::string::npos) << refused.err;
  EXPECT_EQ(read_file(victim), "untouched\n");
}

}  // namespace
}  // namespace paddock::testing::audit_log_test
