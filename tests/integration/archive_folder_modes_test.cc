// An imported archive's folder modes in the state directory (issue 49, item 5): a 0500 folder
// holding 8 MiB stayed on disk after close_session and after the retention clean-up ("Permission
// denied") for a server that is not root, and a 0000 folder could not even be imported. The
// state directory's own folders stay 0700 whatever the archive says, and what a session leaves
// goes with it, through real `paddock mcp` servers and sessions.

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::archive_folder_modes_test {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The archives the review used: a read-only folder with 8 MiB in it, and a closed folder (0000)
// with an unreadable file, each beside a plain file.
void make_archives(const std::string& share) {
  std::string make =
      "python3 -c \"import tarfile, io\n"
      "def add(t, name, mode, data=None):\n"
      "    i = tarfile.TarInfo(name)\n"
      "    i.mode = mode\n"
      "    if data is None:\n"
      "        i.type = tarfile.DIRTYPE\n"
      "        t.addfile(i)\n"
      "    else:\n"
      "        i.size = len(data)\n"
      "        t.addfile(i, io.BytesIO(data))\n"
      "with tarfile.open('" +
      share +
      "/readonly.tar', 'w') as t:\n"
      "    add(t, 'plain.txt', 0o644, b'plain')\n"
      "    add(t, 'locked', 0o500)\n"
      "    add(t, 'locked/big.bin', 0o400, bytes(range(256)) * 32768)\n"
      "with tarfile.open('" +
      share +
      "/closed.tar', 'w') as t:\n"
      "    add(t, 'plain.txt', 0o644, b'plain')\n"
      "    add(t, 'closed', 0o000)\n"
      "    add(t, 'closed/secret', 0o000, b'secret')\n"
      "\"";
  ASSERT_EQ(std::system(make.c_str()), 0);
  // The test users' servers read them with their own rights.
  ASSERT_EQ(chmod((share + "/readonly.tar").c_str(), 0644), 0);
  ASSERT_EQ(chmod((share + "/closed.tar").c_str(), 0644), 0);
}

// Every folder under `dir` 0700, and the bytes of its regular files.
std::uintmax_t check_folders(const std::string& dir) {
  std::uintmax_t bytes = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error); it != fs::end(it);
       it.increment(error)) {
    struct stat info {};
    if (lstat(it->path().c_str(), &info) != 0) continue;
    if (S_ISDIR(info.st_mode)) {
      EXPECT_EQ(info.st_mode & 0777, 0700u) << it->path();
    }
    if (S_ISREG(info.st_mode)) bytes += static_cast<std::uintmax_t>(info.st_size);
  }
  EXPECT_FALSE(error) << dir << ": " << error.message();
  return bytes;
}

// What the unfixed server leaves, made removable again so that the test's folder goes.
void make_removable(const std::string& dir) {
  std::string command = "chmod -R u+rwx '" + dir + "' 2>/dev/null";
  (void)std::system(command.c_str());
}

std::string stdout_of(McpProcess& server, int id, const std::string& session,
                      const std::string& code) {
  server.call(id, "execute_code", {{"session_id", session}, {"code", code}});
  json answer = server.wait_for(id, std::chrono::seconds(120));
  EXPECT_FALSE(McpProcess::is_tool_error(answer)) << answer.dump();
  return answer.is_object() && answer.contains("result")
             ? answer["result"]["structuredContent"].value("stdout", "")
             : answer.dump();
}

TEST(ArchiveFolderModes, AReadOnlyFolderFromAnArchiveGoesWithItsSession) {
  TempFolder state("archive-modes");
  TempFolder share("archive-modes-share");
  make_archives(share.path());
  std::string dir = state / "state";
  fs::path sessions = fs::path(dir) / "sessions";
  {
    McpProcess server({"--state-dir", dir, "--warm", "0", "--share", share.path() + "=in"});
    json created;
    std::string id =
        server.open_session(1, {{"from_archive", "in/readonly.tar"}, {"live", false}}, &created);
    ASSERT_FALSE(id.empty()) << created.dump();
    EXPECT_EQ(stdout_of(server, 2, id,
                        "import os\nprint(open('plain.txt').read(), "
                        "os.path.getsize('locked/big.bin'))"),
              "plain 8388608\n");
    // Its 8 MiB are in the state directory, in folders the server keeps 0700.
    EXPECT_GE(check_folders(dir), 8u << 20);
    server.call(3, "close_session", {{"session_id", id}});
    json closed = server.wait_for(3);
    EXPECT_FALSE(McpProcess::is_tool_error(closed)) << closed.dump();
    EXPECT_FALSE(fs::exists(sessions / id)) << "close_session left the session on disk";
  }
  // Kept, then past the retention: the clean-up takes it all.
  std::string kept;
  {
    McpProcess server({"--state-dir", dir, "--warm", "0", "--share", share.path() + "=in"});
    json created;
    kept = server.open_session(1, {{"from_archive", "in/readonly.tar"}, {"live", false}}, &created);
    ASSERT_FALSE(kept.empty()) << created.dump();
    server.call(2, "close_session", {{"session_id", kept}, {"keep", true}});
    server.wait_for(2);
  }
  fs::path meta = sessions / kept / "meta.json";
  json info = json::parse(std::ifstream(meta));
  info["last_used"] = info["last_used"].get<std::int64_t>() - 10 * 86400;
  std::ofstream(meta) << info.dump();
  {
    McpProcess server({"--state-dir", dir, "--warm", "0", "--session-retention", "168h"});
    server.call(1, "list_sessions", json::object());
    server.wait_for(1);
  }
  EXPECT_FALSE(fs::exists(sessions / kept)) << "the retention clean-up left the session on disk";
  EXPECT_LT(check_folders(dir), 64u << 10) << "left in the state directory";
  make_removable(dir);
}

TEST(ArchiveFolderModes, AClosedFolderFromAnArchiveIsImportedReadAndRemoved) {
  TempFolder state("archive-closed");
  TempFolder share("archive-closed-share");
  make_archives(share.path());
  std::string dir = state / "state";
  McpProcess server({"--state-dir", dir, "--warm", "0", "--share", share.path() + "=in"});
  json created;
  std::string id =
      server.open_session(1, {{"from_archive", "in/closed.tar"}, {"live", false}}, &created);
  EXPECT_FALSE(id.empty()) << created.dump();
  if (!id.empty()) {
    EXPECT_EQ(stdout_of(server, 2, id, "print(open('closed/secret').read())"), "secret\n");
    server.call(3, "close_session", {{"session_id", id}});
    server.wait_for(3);
  }
  // Nothing left: neither the session nor what a failed import would have left (".new").
  std::error_code error;
  std::size_t left = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "sessions", error)) {
    ADD_FAILURE() << "left in the state directory: " << entry.path();
    ++left;
  }
  EXPECT_EQ(left, 0u);
  check_folders(dir);
  make_removable(dir);
}

}  // namespace
}  // namespace paddock::testing::archive_folder_modes_test
