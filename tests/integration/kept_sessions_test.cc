// Sessions kept on disk (app/kept_sessions.h, state/), through real `paddock mcp` servers
// that are killed and started again on one state directory: files and libraries come back by id
// and by name, what a call wrote is on disk when it returns, a call cut off leaves the session
// as it was before it, quotas refuse inside the sandbox, hostile names and links go nowhere, and
// two servers never open one session at once.

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::kept_sessions_test {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// One server on a state directory, started again at will.
class KeptServer {
 public:
  explicit KeptServer(std::string state_dir, std::vector<std::string> flags = {})
      : state_dir_(std::move(state_dir)), flags_(std::move(flags)) {
    start();
  }
  void start() {
    std::vector<std::string> flags = {"--state-dir", state_dir_, "--warm", "0"};
    flags.insert(flags.end(), flags_.begin(), flags_.end());
    mcp_ = std::make_unique<McpProcess>(flags);
  }
  // SIGKILL, as when the machine or the client kills it: nothing is flushed on the way out.
  void kill_and_restart() {
    mcp_.reset();
    start();
  }
  json call(const std::string& tool, json arguments,
            std::chrono::seconds timeout = std::chrono::seconds(120)) {
    int id = ++next_id_;
    mcp_->call(id, tool, std::move(arguments));
    json answer = mcp_->wait_for(id, timeout);
    EXPECT_TRUE(answer.is_object()) << tool << ": no answer";
    return answer;
  }
  // A call that must succeed: its structured result.
  json ok(const std::string& tool, json arguments) {
    json answer = call(tool, std::move(arguments));
    EXPECT_FALSE(McpProcess::is_tool_error(answer)) << tool << ": " << answer.dump();
    return answer.is_object() && answer.contains("result")
               ? answer["result"].value("structuredContent", json::object())
               : json::object();
  }
  // A new session that runs each call as a process (no kernel to start): its id.
  std::string new_session() {
    return ok("create_session", {{"live", false}}).value("session_id", "");
  }
  std::string stdout_of(const std::string& session, const std::string& code) {
    return ok("execute_code", {{"session_id", session}, {"code", code}}).value("stdout", "");
  }
  McpProcess& mcp() { return *mcp_; }

 private:
  std::string state_dir_;
  std::vector<std::string> flags_;
  std::unique_ptr<McpProcess> mcp_;
  int next_id_ = 0;
};

// Bytes of the regular files under `dir`, each file once however many names link it.
std::uintmax_t unique_file_bytes(const std::string& dir) {
  std::set<ino_t> inodes;
  std::uintmax_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    struct stat info {};
    if (lstat(entry.path().c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (inodes.insert(info.st_ino).second) bytes += static_cast<std::uintmax_t>(info.st_size);
  }
  return bytes;
}

// Blocks the tree `dir` takes on its disk, folders included, each inode once: what `du` says.
std::uintmax_t unique_disk_bytes(const std::string& dir) {
  std::set<ino_t> inodes;
  std::uintmax_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    struct stat info {};
    if (lstat(entry.path().c_str(), &info) != 0) continue;
    if (inodes.insert(info.st_ino).second)
      bytes += static_cast<std::uintmax_t>(info.st_blocks) * 512;
  }
  return bytes;
}

std::string all_text(const json& answer) {
  std::string text;
  if (!answer.is_object() || !answer.contains("result")) return answer.dump();
  for (const auto& block : answer["result"].value("content", json::array())) {
    text += block.value("text", "") + "\n";
  }
  return text;
}

// A server that keeps nothing on disk has no snapshots to take or fork from: neither tool is
// listed (issue 53), a call to either is refused naming --state-dir, and the server answers the
// next call.
TEST(KeptSessions, SnapshotAndForkWithoutAStateDirectoryAreRefusedAndTheServerLives) {
  KeptServer server("none");
  std::string session = server.new_session();
  ASSERT_FALSE(session.empty());
  for (const auto& [tool, arguments] : std::vector<std::pair<std::string, json>>{
           {"snapshot_session", {{"session_id", session}, {"name", "one"}}},
           {"fork_session", {{"session_id", session}}}}) {
    json answer = server.call(tool, arguments);
    ASSERT_TRUE(answer.contains("error")) << tool << ": " << answer.dump();
    EXPECT_NE(answer["error"].value("message", "").find("--state-dir"), std::string::npos)
        << answer.dump();
    EXPECT_EQ(server.stdout_of(session, "print(6 * 7)"), "42\n") << "after " << tool;
  }
}

TEST(KeptSessions, FilesAndLibrariesComeBackAfterTheServerIsKilled) {
  TempFolder state("kept-state");
  KeptServer server(state / "state");
  json made = server.ok("create_session", {{"name", "analysis"}});
  std::string id = made.value("session_id", "");
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(made.value("kept", false));
  // A file, a library where pip --user puts them, a symlink and a live variable.
  EXPECT_EQ(
      server.stdout_of("analysis",
                       "import os, site\n"
                       "os.makedirs('data', exist_ok=True)\n"
                       "open('data/result.csv', 'w').write('a,b\\n1,2\\n')\n"
                       "lib = site.getusersitepackages()\n"
                       "os.makedirs(lib, exist_ok=True)\n"
                       "open(os.path.join(lib, 'keptlib.py'), 'w').write('ANSWER = 42\\n')\n"
                       "open('run.sh', 'w').write('echo hi')\n"
                       "os.chmod('run.sh', 0o755)\n"
                       "os.symlink('data/result.csv', 'latest')\n"
                       // What only the sandbox user may read: the server reads it through init.
                       "open('secret', 'w').write('mine')\n"
                       "os.chmod('secret', 0o600)\n"
                       "os.makedirs('private')\n"
                       "open('private/inner', 'w').write('deep')\n"
                       "os.chmod('private', 0o700)\n"
                       "x = 41\n"
                       "print('written')\n"),
      "written\n");
  // Killed the moment the call returned: what it wrote must be on disk already.
  server.kill_and_restart();

  json listed = server.ok("list_sessions", json::object());
  bool seen = false;
  for (const auto& session : listed["sessions"]) {
    if (session.value("session_id", "") != id) continue;
    seen = true;
    EXPECT_EQ(session.value("name", ""), "analysis");
    EXPECT_EQ(session.value("language", ""), "python");
    EXPECT_FALSE(session.value("open", true));
    EXPECT_TRUE(session.value("state_lost", false));
    EXPECT_GT(session.value("bytes", 0), 0);
  }
  EXPECT_TRUE(seen) << listed.dump();

  json first = server.call("execute_code",
                           {{"session_id", "analysis"},
                            {"code",
                             "import os, keptlib\n"
                             "print(open('data/result.csv').read(), end='')\n"
                             "print(keptlib.ANSWER, os.readlink('latest'),\n"
                             "      os.access('run.sh', os.X_OK))\n"
                             "print('x' in globals())\n"
                             "print(open('secret').read(), open('private/inner').read())\n"}});
  ASSERT_FALSE(McpProcess::is_tool_error(first)) << first.dump();
  EXPECT_EQ(first["result"]["structuredContent"].value("stdout", ""),
            "a,b\n1,2\n42 data/result.csv True\nFalse\nmine deep\n");
  EXPECT_NE(all_text(first).find("the server restarted"), std::string::npos) << all_text(first);
  // Said once: the next cell keeps its variables as usual.
  json second = server.call("execute_code", {{"session_id", id}, {"code", "y = 1\nprint(y)"}});
  EXPECT_EQ(all_text(second).find("restarted"), std::string::npos) << all_text(second);
}

TEST(KeptSessions, ACallCutOffByTheServersDeathLeavesTheFilesOfTheCallBefore) {
  TempFolder state("kept-cut");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(server.stdout_of(id, "open('before.txt', 'w').write('kept')\nprint('ok')"), "ok\n");
  // A call that rewrites the kept file and keeps writing new ones until it is killed.
  server.mcp().call(900, "execute_code",
                    {{"session_id", id},
                     {"code",
                      "import time\n"
                      "open('before.txt', 'w').write('half')\n"
                      "i = 0\n"
                      "while True:\n"
                      "    open(f'during-{i}.txt', 'w').write('x' * 1000)\n"
                      "    i += 1\n"
                      "    time.sleep(0.001)\n"}});
  std::this_thread::sleep_for(std::chrono::seconds(2));
  server.kill_and_restart();
  EXPECT_EQ(server.stdout_of(id,
                             "import os\n"
                             "print(open('before.txt').read(),\n"
                             "      sum(name.startswith('during-') for name in os.listdir('.')))"),
            "kept 0\n");
}

TEST(KeptSessions, TheStateDirectoryIsPrivateAndHoldsOnlyWhatSessionsWrote) {
  TempFolder state("kept-private");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  // Links that point at the host's files are kept as links: the server never follows them.
  EXPECT_EQ(server.stdout_of(id,
                             "import os\n"
                             "os.symlink('/etc/passwd', 'passwd')\n"
                             "os.symlink('../../../../../../etc/shadow', 'shadow')\n"
                             "os.mkfifo('pipe')\n"
                             "print('ok')"),
            "ok\n");
  struct stat info {};
  ASSERT_EQ(stat((state / "state").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  for (const auto& entry : fs::recursive_directory_iterator(state / "state")) {
    EXPECT_FALSE(entry.is_fifo()) << entry.path();
  }
  // Far less than /etc/passwd's copy would add to the sandbox's own few files? The files: the
  // support files and metadata only, no file of the host's.
  for (const auto& entry : fs::recursive_directory_iterator(state / "state")) {
    if (!entry.is_regular_file() || entry.is_symlink()) continue;
    std::string name = entry.path().filename();
    EXPECT_NE(name, "passwd");
    EXPECT_NE(name, "shadow");
  }
  EXPECT_LT(unique_file_bytes(state / "state"), 1u << 20);
  server.kill_and_restart();
  EXPECT_EQ(server.stdout_of(id, "import os\nprint(os.readlink('passwd'), os.path.exists('pipe'))"),
            "/etc/passwd False\n");
}

TEST(KeptSessions, QuotasRefuseInsideTheSandboxAndSpareOtherSessions) {
  TempFolder state("kept-quota");
  KeptServer server(state / "state", {"--session-disk", "8M", "--session-files", "200"});
  std::string full = server.new_session();
  std::string other = server.new_session();
  ASSERT_FALSE(full.empty());
  ASSERT_FALSE(other.empty());
  EXPECT_EQ(server.stdout_of(full,
                             "import errno\n"
                             "try:\n"
                             "    open('big', 'wb').write(b'x' * (16 << 20))\n"
                             "except OSError as e:\n"
                             "    print(errno.errorcode[e.errno])\n"),
            "ENOSPC\n");
  EXPECT_EQ(server.stdout_of(full,
                             "import errno, os\n"
                             "os.remove('big')\n"
                             "try:\n"
                             "    for i in range(1000): open(f'f{i}', 'w').close()\n"
                             "except OSError as e:\n"
                             "    print(errno.errorcode[e.errno])\n"),
            "ENOSPC\n");
  // Not caught: the result names the limits that were hit.
  json full_again =
      server.call("execute_code",
                  {{"session_id", full}, {"code", "open('big', 'wb').write(b'x' * (16 << 20))"}});
  EXPECT_NE(all_text(full_again).find("disk full (/work holds 8 MiB and 200 files and folders"),
            std::string::npos)
      << all_text(full_again);
  EXPECT_EQ(server.stdout_of(other, "open('fine', 'wb').write(b'y' * (4 << 20))\nprint('fine')"),
            "fine\n");
  // The whole directory stays near the quota: nothing was copied beyond what the tmpfs held.
  EXPECT_LT(unique_file_bytes(state / "state"), 16u << 20);
}

TEST(KeptSessions, SnapshotsStopAtTheStateDirectoryLimit) {
  TempFolder state("kept-state-limit");
  KeptServer server(state / "state", {"--state-disk", "40M", "--session-disk", "8M"});
  std::string id = server.new_session();
  // Each round pins 6 MiB in a snapshot that the next round's rewrite no longer shares. The
  // save that would pass the limit is refused before it writes (its result names the limit),
  // or else the snapshot is.
  bool refused = false;
  for (int i = 0; i < 12 && !refused; ++i) {
    json run = server.call(
        "execute_code",
        {{"session_id", id}, {"code", "import os\nopen('data', 'wb').write(os.urandom(6 << 20))"}});
    refused = all_text(run).find("--state-disk") != std::string::npos;
    json answer =
        server.call("snapshot_session", {{"session_id", id}, {"name", "s" + std::to_string(i)}});
    if (McpProcess::is_tool_error(answer)) {
      refused = true;
      EXPECT_NE(all_text(answer).find("--state-disk"), std::string::npos) << all_text(answer);
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_LT(unique_disk_bytes(state / "state"), 40u << 20);
}

TEST(KeptSessions, FoldersNestedTooDeepAreNotSavedAndTheServerGoesOn) {
  TempFolder state("kept-deep");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  json deep = server.call(
      "execute_code", {{"session_id", id},
                       {"code", "import os\nos.makedirs('/'.join(['d'] * 100))\nprint('made')"}});
  EXPECT_NE(all_text(deep).find("could not be kept on disk"), std::string::npos) << all_text(deep);
  // The server answers, and another session is kept as usual.
  std::string other = server.new_session();
  EXPECT_EQ(server.stdout_of(other, "open('a', 'w').write('x')\nprint('ok')"), "ok\n");
}

TEST(KeptSessions, HostileNamesAreRefusedWithALine) {
  TempFolder state("kept-names");
  KeptServer server(state / "state");
  for (const std::string& name :
       std::vector<std::string>{"../escape", "a/b", "/etc", ".hidden", "-flag",
                                std::string(65, 'n'), std::string("nul\x01")}) {
    json answer = server.call("create_session", {{"name", name}, {"live", false}});
    EXPECT_TRUE(McpProcess::is_tool_error(answer)) << name << ": " << answer.dump();
  }
  EXPECT_FALSE(fs::exists(state / "escape"));
  std::string id =
      server.ok("create_session", {{"name", "mine"}, {"live", false}}).value("session_id", "");
  EXPECT_TRUE(McpProcess::is_tool_error(
      server.call("create_session", {{"name", "mine"}, {"live", false}})));
  for (const std::string& snapshot :
       std::vector<std::string>{"..", "../../x", "a/b", std::string(65, 's')}) {
    json answer = server.call("snapshot_session", {{"session_id", id}, {"name", snapshot}});
    EXPECT_TRUE(McpProcess::is_tool_error(answer)) << snapshot << ": " << answer.dump();
  }
  EXPECT_TRUE(McpProcess::is_tool_error(
      server.call("diff_session", {{"session_id", id}, {"since", "../../.."}})));
}

TEST(KeptSessions, SnapshotsForksAndDiffsShareUnchangedData) {
  TempFolder state("kept-snap");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  EXPECT_EQ(server.stdout_of(id,
                             "import os\n"
                             "open('big.bin', 'wb').write(os.urandom(20 << 20))\n"
                             "open('notes.txt', 'w').write('one')\n"
                             "print('ok')"),
            "ok\n");
  for (int i = 0; i < 10; ++i) {
    server.ok("snapshot_session", {{"session_id", id}, {"name", "s" + std::to_string(i)}});
    server.stdout_of(id, "open('notes.txt', 'a').write('more')\nprint('ok')");
  }
  // Eleven copies of 20 MiB unless they share: one, and the small files.
  EXPECT_LT(unique_file_bytes(state / "state"), 25u << 20);
  EXPECT_TRUE(McpProcess::is_tool_error(
      server.call("snapshot_session", {{"session_id", id}, {"name", "s0"}})));

  json diff = server.ok("diff_session", {{"session_id", id}, {"since", "s0"}});
  std::map<std::string, std::string> changes;
  for (const auto& change : diff["changes"]) {
    changes[change.value("path", "")] = change.value("change", "");
  }
  EXPECT_EQ(changes["notes.txt"], "changed") << diff.dump();
  EXPECT_FALSE(changes.contains("big.bin")) << diff.dump();

  json fork = server.ok("fork_session", {{"session_id", id}, {"live", false}});
  std::string child = fork.value("session_id", "");
  ASSERT_FALSE(child.empty());
  EXPECT_EQ(server.stdout_of(child,
                             "import os\nprint(os.path.getsize('big.bin'))\n"
                             "open('notes.txt', 'w').write('child')"),
            std::to_string(20 << 20) + "\n");
  // The original is unchanged by its fork's writes.
  EXPECT_EQ(server.stdout_of(id, "print(open('notes.txt').read()[:3])"), "one\n");
  json from =
      server.ok("create_session",
                {{"from_snapshot", {{"session_id", id}, {"snapshot", "s0"}}}, {"live", false}});
  EXPECT_EQ(server.stdout_of(from.value("session_id", ""), "print(open('notes.txt').read())"),
            "one\n");
}

TEST(KeptSessions, TwoServersOnOneStateDirectoryNeverOpenOneSessionTwice) {
  TempFolder state("kept-two");
  KeptServer first(state / "state");
  KeptServer second(state / "state");
  std::string id =
      first.ok("create_session", {{"name", "shared"}, {"live", false}}).value("session_id", "");
  first.stdout_of(id, "open('a', 'w').write('first')\nprint('ok')");
  json refused = second.call("execute_code", {{"session_id", "shared"}, {"code", "print(1)"}});
  EXPECT_TRUE(McpProcess::is_tool_error(refused));
  EXPECT_NE(all_text(refused).find("another paddock server"), std::string::npos)
      << all_text(refused);
  json listed = second.ok("list_sessions", json::object());
  ASSERT_FALSE(listed["sessions"].empty());
  EXPECT_TRUE(listed["sessions"][0].value("in_use_elsewhere", false)) << listed.dump();
  // Its name is taken for the second server too.
  EXPECT_TRUE(McpProcess::is_tool_error(
      second.call("create_session", {{"name", "shared"}, {"live", false}})));
  // Once the first is gone, the second reopens it.
  first.mcp().close_input();
  first.mcp().wait_exit(std::chrono::seconds(60));
  EXPECT_EQ(second.stdout_of("shared", "print(open('a').read())"), "first\n");
}

TEST(KeptSessions, AWorkspaceDamagedByHandIsAClearErrorAndTheServerGoesOn) {
  TempFolder state("kept-damaged");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  server.stdout_of(id, "open('a', 'w').write('x')\nprint('ok')");
  server.kill_and_restart();
  // The current generation's files are gone.
  fs::path session = fs::path(state / "state") / "sessions" / id;
  fs::path current = session / fs::read_symlink(session / "current");
  fs::remove_all(current);
  json answer = server.call("execute_code", {{"session_id", id}, {"code", "print(1)"}});
  EXPECT_TRUE(McpProcess::is_tool_error(answer));
  EXPECT_NE(all_text(answer).find("outside paddock"), std::string::npos) << all_text(answer);
  std::string fresh = server.new_session();
  EXPECT_EQ(server.stdout_of(fresh, "print(2)"), "2\n");
}

TEST(KeptSessions, CloseSessionRemovesItFromDiskUnlessKept) {
  TempFolder state("kept-close");
  KeptServer server(state / "state");
  std::string gone = server.new_session();
  std::string kept = server.new_session();
  server.ok("close_session", {{"session_id", gone}});
  server.ok("close_session", {{"session_id", kept}, {"keep", true}});
  fs::path sessions = fs::path(state / "state") / "sessions";
  EXPECT_FALSE(fs::exists(sessions / gone));
  EXPECT_TRUE(fs::exists(sessions / kept));
  EXPECT_TRUE(McpProcess::is_tool_error(
      server.call("execute_code", {{"session_id", gone}, {"code", "print(1)"}})));
  EXPECT_EQ(server.stdout_of(kept, "print(3)"), "3\n");
}

TEST(KeptSessions, SessionsUnusedPastTheRetentionAreRemovedWithAnAuditLine) {
  TempFolder state("kept-retention");
  std::string audit = state / "audit.log";
  std::string old_id, recent_id;
  {
    KeptServer server(state / "state");
    old_id =
        server.ok("create_session", {{"name", "old"}, {"live", false}}).value("session_id", "");
    recent_id = server.new_session();
    server.ok("close_session", {{"session_id", old_id}, {"keep", true}});
    server.ok("close_session", {{"session_id", recent_id}, {"keep", true}});
  }
  // Last used ten days ago, as its meta.json says.
  fs::path meta = fs::path(state / "state") / "sessions" / old_id / "meta.json";
  json info = json::parse(std::ifstream(meta));
  info["last_used"] = info["last_used"].get<std::int64_t>() - 10 * 86400;
  std::ofstream(meta) << info.dump();
  KeptServer server(state / "state", {"--session-retention", "168h", "--audit-log", audit});
  server.ok("list_sessions", json::object());
  fs::path sessions = fs::path(state / "state") / "sessions";
  EXPECT_FALSE(fs::exists(sessions / old_id));
  EXPECT_FALSE(fs::exists(fs::path(state / "state") / "names" / "old"));
  EXPECT_TRUE(fs::exists(sessions / recent_id));
  std::ifstream log(audit);
  std::string line, found;
  while (std::getline(log, line)) {
    if (line.find("session_retention") != std::string::npos) found = line;
  }
  EXPECT_NE(found.find(old_id), std::string::npos) << found;
  EXPECT_NE(found.find("removed"), std::string::npos) << found;
}

TEST(KeptSessions, ExportedArchivesComeBackAndHostileOnesLandNowhereElse) {
  TempFolder state("kept-archive");
  TempFolder share("kept-share");
  chmod(share.path().c_str(), 0777);  // the test users' servers write their exports there
  KeptServer server(state / "state", {"--share", share.path() + "=out:rw"});
  std::string id = server.new_session();
  EXPECT_EQ(server.stdout_of(id,
                             "import os\nos.makedirs('d')\nopen('d/f', 'w').write('data')\n"
                             "os.symlink('/etc/passwd', 'p')\nprint('ok')"),
            "ok\n");
  json exported = server.ok("export_session", {{"session_id", id}, {"host_path", "out/s.tar.zst"}});
  EXPECT_GT(exported.value("bytes", 0), 0) << exported.dump();
  json imported = server.ok("create_session", {{"from_archive", "out/s.tar.zst"}, {"live", false}});
  EXPECT_EQ(server.stdout_of(imported.value("session_id", ""),
                             "import os\nprint(open('d/f').read(), os.readlink('p'))"),
            "data /etc/passwd\n");
  // An archive that tries every way out: none of its entries lands outside the workspace.
  std::string hostile = share / "hostile.tar";
  std::string make =
      "python3 -c \"import tarfile, io\n"
      "t = tarfile.open('" +
      hostile +
      "', 'w')\n"
      "def add(name, **kw):\n"
      "    i = tarfile.TarInfo(name)\n"
      "    for k, v in kw.items(): setattr(i, k, v)\n"
      "    data = b'owned' if i.type == tarfile.REGTYPE else b''\n"
      "    i.size = len(data)\n"
      "    t.addfile(i, io.BytesIO(data))\n"
      "add('/tmp/paddock-kept-abs-escape')\n"
      "add('../../../../../../tmp/paddock-kept-dotdot-escape')\n"
      "add('link', type=tarfile.SYMTYPE, linkname='/tmp')\n"
      "add('link/paddock-kept-link-escape')\n"
      "add('hard', type=tarfile.LNKTYPE, linkname='/etc/passwd')\n"
      "add('dev', type=tarfile.CHRTYPE, devmajor=1, devminor=3)\n"
      "t.close()\"";
  ASSERT_EQ(std::system(make.c_str()), 0);
  json refused =
      server.call("create_session", {{"from_archive", "out/hostile.tar"}, {"live", false}});
  for (const char* escape : {"/tmp/paddock-kept-abs-escape", "/tmp/paddock-kept-dotdot-escape",
                             "/tmp/paddock-kept-link-escape"}) {
    EXPECT_FALSE(fs::exists(escape)) << escape << " " << all_text(refused);
  }
  if (!McpProcess::is_tool_error(refused)) {
    std::string landed =
        server.stdout_of(refused["result"]["structuredContent"].value("session_id", ""),
                         "import os\nprint(os.path.exists('dev'), os.path.exists('hard') and "
                         "open('hard').read().startswith('root:'))");
    EXPECT_EQ(landed, "False False\n");
  }
}

// Every way a program changes a file, after the file was saved once: each change is on disk
// when the call returns, and comes back after a restart. The mapping is made and read in one
// call and written through in the next, with the interpreter (and the mapping) alive between:
// then the write changes neither size, ctime nor mtime, and only the bytes tell.
TEST(KeptSessions, EveryKindOfWriteIsSavedEvenThroughASharedMapping) {
  TempFolder state("kept-writes");
  KeptServer server(state / "state");
  std::string id = server.ok("create_session", {{"live", true}}).value("session_id", "");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(server.stdout_of(id,
                             "import mmap, os\n"
                             "for name in ['w', 'm', 'd', 't', 'f', 'r', 'h1']:\n"
                             "    open(name, 'wb').write(b'x' * 8192)\n"
                             "os.link('h1', 'h2')\n"
                             "os.chmod('r', 0o755)\n"
                             // A name that is not UTF-8: any bytes but '/' and NUL.
                             "open(b'caf\\xe9 \\xff', 'wb').write(b'latin')\n"
                             "mapped_file = open('m', 'r+b')\n"
                             "mapping = mmap.mmap(mapped_file.fileno(), 0)\n"
                             "print(mapping[0:1].decode(), os.stat('m').st_ctime_ns > 0)\n"),
            "x True\n");
  std::string second = server.stdout_of(
      id,
      "import os\n"
      "before = os.stat('m')\n"
      "mapping[0:5] = b'MMAP!'\n"
      "after = os.stat('m')\n"
      // The condition of the attack: nothing in the metadata moved.
      "print('unchanged' if (before.st_ctime_ns, before.st_mtime_ns, before.st_size) ==\n"
      "      (after.st_ctime_ns, after.st_mtime_ns, after.st_size) else 'moved')\n"
      "with open('w', 'r+b') as f: f.write(b'WRITE')\n"
      "try:\n"
      "    fd = os.open('d', os.O_RDWR | os.O_DIRECT)\n"
      "    buffer = mmap.mmap(-1, 4096)\n"
      "    buffer[0:6] = b'DIRECT'\n"
      "    os.pwrite(fd, buffer, 0)\n"
      "    os.close(fd)\n"
      "    print('direct')\n"
      "except OSError as e:\n"
      "    print('no O_DIRECT here:', e.errno)\n"
      "    with open('d', 'r+b') as f: f.write(b'DIRECT')\n"
      "os.truncate('t', 3)\n"
      "with open('f', 'r+b') as f: os.posix_fallocate(f.fileno(), 0, 65536)\n"
      "open('r.new', 'wb').write(b'RENAMED')\n"
      "os.replace('r.new', 'r')\n"
      "with open('h2', 'r+b') as f: f.write(b'LINKED')\n"
      // A chmod alone moves neither the bytes nor the inode; the executable bit is kept.
      "open('x', 'wb').write(b'#!/bin/sh\\necho ran\\n')\n"
      "print('done')\n");
  EXPECT_EQ(second.substr(0, second.find('\n')), "unchanged") << second;
  EXPECT_NE(second.find("done"), std::string::npos) << second;
  EXPECT_EQ(server.stdout_of(id, "import os\nos.chmod('x', 0o755)\nos.chmod('h1', 0o755)\n"
                                 "print('chmod')\n"),
            "chmod\n");
  server.kill_and_restart();
  std::string after =
      server.stdout_of(id,
                       "import os\n"
                       "for name in ['w', 'm', 'd', 't', 'f', 'r', 'h1', 'h2']:\n"
                       "    data = open(name, 'rb').read()\n"
                       "    print(name, len(data), data[:6].decode())\n"
                       "print('one file', os.stat('h1').st_ino == os.stat('h2').st_ino)\n"
                       "print('executable', [n for n in ['x', 'h1', 'h2', 'r', 'w']\n"
                       "                     if os.access(n, os.X_OK)])\n"
                       "print(os.popen('./x').read(), end='')\n"
                       "print(open(b'caf\\xe9 \\xff', 'rb').read().decode())\n");
  EXPECT_EQ(after,
            "w 8192 WRITEx\n"
            "m 8192 MMAP!x\n"
            "d 8192 DIRECT\n"
            "t 3 xxx\n"
            "f 65536 xxxxxx\n"
            "r 7 RENAME\n"
            "h1 8192 LINKED\n"
            "h2 8192 LINKED\n"
            "one file True\n"
            "executable ['x', 'h1', 'h2']\n"
            "ran\n"
            "latin\n");
}

// What fitted the session's tmpfs is reopened and forked in one of the same size: holes stay
// holes, hard links stay one file, and a session within 1 MiB of --session-disk comes back.
TEST(KeptSessions, SparseFilesHardLinksAndAFullSessionAreReopenedAndForked) {
  TempFolder state("kept-restore");
  KeptServer server(state / "state", {"--session-disk", "32M"});
  std::string id = server.new_session();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(server.stdout_of(
                id,
                "import os\n"
                "for name in ['sparse1', 'sparse2']:\n"
                "    with open(name, 'wb') as f:\n"
                "        f.write(b'head')\n"
                "        f.truncate(20 << 20)\n"
                "open('big', 'wb').write(os.urandom(20 << 20))\n"
                "os.link('big', 'big2')\n"
                "used = sum(os.stat(n).st_blocks * 512 for n in ['sparse1', 'sparse2', 'big'])\n"
                "open('fill', 'wb').write(b'f' * ((32 << 20) - used - (600 << 10)))\n"
                "s = os.statvfs('.')\n"
                "print('free under 1 MiB', (s.f_bavail * s.f_frsize) < (1 << 20))\n"),
            "free under 1 MiB True\n");
  const std::string check =
      "import os\n"
      "print('sparse', all(os.stat(n).st_blocks * 512 < (1 << 20) and\n"
      "                    os.stat(n).st_size == 20 << 20 for n in ['sparse1', 'sparse2']))\n"
      "print('linked', os.stat('big').st_ino == os.stat('big2').st_ino)\n"
      "print('head', open('sparse2', 'rb').read(4).decode())\n";
  const std::string expected = "sparse True\nlinked True\nhead head\n";
  server.kill_and_restart();
  json reopened = server.call("execute_code", {{"session_id", id}, {"code", check}});
  EXPECT_FALSE(McpProcess::is_tool_error(reopened)) << all_text(reopened);
  EXPECT_EQ(reopened["result"]["structuredContent"].value("stdout", ""), expected)
      << all_text(reopened);
  json forked = server.call("fork_session", {{"session_id", id}, {"live", false}});
  ASSERT_FALSE(McpProcess::is_tool_error(forked)) << all_text(forked);
  std::string fork = forked["result"]["structuredContent"].value("session_id", "");
  EXPECT_EQ(server.stdout_of(fork, check), expected);
}

// A folder the server may not search (it is not the sandbox user when it has subordinate ids)
// with links inside: absolute, to folders, to themselves. Each stays a link, the save goes on
// keeping the files written after, and nothing is copied as a tree.
TEST(KeptSessions, LinksInAPrivateFolderAreKeptAsLinksAndNeverFollowed) {
  TempFolder state("kept-links");
  KeptServer server(state / "state");
  std::string id = server.new_session();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(
      server.stdout_of(id,
                       "import os, tempfile\n"
                       "private = tempfile.mkdtemp(dir='.')\n"
                       "os.rename(private, 'private')\n"
                       "os.makedirs('private/tree/inner')\n"
                       "for i in range(20): open(f'private/tree/inner/f{i}', 'w').write('x')\n"
                       "os.symlink('/usr/bin/python3', 'private/python')\n"
                       "os.symlink('tree', 'private/to_tree')\n"
                       "os.symlink('.', 'private/self')\n"
                       "os.symlink('..', 'private/up')\n"
                       "os.symlink('to_tree', 'private/chain')\n"
                       "os.chmod('private/tree', 0o700)\n"
                       "os.chmod('private', 0o700)\n"
                       "print(oct(os.stat('private').st_mode & 0o777))\n"),
      "0o700\n");
  EXPECT_EQ(server.stdout_of(id, "open('after', 'w').write('later')\nprint('ok')"), "ok\n");
  // The session's copy holds its 33 entries once: no link was followed into a tree.
  std::size_t entries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(state / "state/sessions/" + id)) {
    (void)entry;
    ++entries;
  }
  EXPECT_LT(entries, 120u);
  server.kill_and_restart();
  EXPECT_EQ(
      server.stdout_of(id,
                       "import os\n"
                       "print(os.readlink('private/python'), os.readlink('private/self'),\n"
                       "      os.readlink('private/chain'), os.path.islink('private/up'))\n"
                       "print(len(os.listdir('private/tree/inner')), open('after').read())\n"),
      "/usr/bin/python3 . to_tree True\n20 later\n");
}

// Folders cost the state directory's disk a block each where the tmpfs spends nearly nothing:
// a save counts them, and checks --state-disk before it writes. The promise (docs/sessions.md):
// each copy (a generation, a snapshot) takes at most the tmpfs's blocks plus one block per
// folder and long link.
TEST(KeptSessions, FoldersCountInTheDiskASaveUsesAndTheStateLimitHoldsBeforeWriting) {
  TempFolder state("kept-folders");
  KeptServer server(state / "state", {"--state-disk", "24M", "--session-disk", "4M"});
  std::string id = server.new_session();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(server.stdout_of(id,
                             "import os\n"
                             "for i in range(1000): os.makedirs(f'dir{i}')\n"
                             "open('data', 'wb').write(os.urandom(512 << 10))\n"
                             "print('made')\n"),
            "made\n");
  EXPECT_FALSE(McpProcess::is_tool_error(
      server.call("snapshot_session", {{"session_id", id}, {"name", "one"}})));
  // Two copies (the generation and the snapshot; `.created` holds the empty start), 1000
  // folders each, 512 KiB of data shared: within the stated bound, with 64 KiB for paddock's own
  // files (meta.json, manifests, locks).
  std::uintmax_t bound = 2 * ((512u << 10) + 1001 * 4096) + (64u << 10);
  EXPECT_LE(unique_disk_bytes(state / "state/sessions/" + id), bound);
  // 6000 more folders take 27 MiB on disk: the save is refused before it writes them, names
  // the limit, and the state directory stays under it.
  json flood = server.call(
      "execute_code",
      {{"session_id", id}, {"code", "import os\nfor i in range(6000): os.makedirs(f'e{i}')\n"}});
  EXPECT_NE(all_text(flood).find("--state-disk"), std::string::npos) << all_text(flood);
  EXPECT_LT(unique_disk_bytes(state / "state"), 24u << 20);
  // Forks copy the 1000 folders each (a snapshot, then the new session's first generation):
  // they stop at the limit too, with a line naming it.
  bool refused = false;
  for (int i = 0; i < 4 && !refused; ++i) {
    json fork = server.call("fork_session", {{"session_id", id}, {"live", false}});
    refused = McpProcess::is_tool_error(fork);
    if (refused) {
      EXPECT_NE(all_text(fork).find("--state-disk"), std::string::npos) << all_text(fork);
    }
    EXPECT_LT(unique_disk_bytes(state / "state"), 24u << 20);
  }
  EXPECT_TRUE(refused);
  // The generation before it stays current, whole.
  server.kill_and_restart();
  EXPECT_EQ(server.stdout_of(
                id, "import os\nprint(len([n for n in os.listdir() if n.startswith('dir')]))"),
            "1000\n");
}

}  // namespace
}  // namespace paddock::testing::kept_sessions_test
