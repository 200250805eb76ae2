// upload_file and download_file act with the rights of the share's owner (the owner of the
// shared folder), never with a root server's privileges: a model must not read another user's
// 0600 file inside a share, nor write into another user's 0700 folder there, when a mount of
// the same share would get "Permission denied" (issue 36, item 4).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::transfer_rights_test {
namespace {

using json = nlohmann::json;

constexpr uid_t kStranger = 65532;  // "another user": no one the server or the share owner is

void write_owned(const std::string& path, const std::string& text, uid_t uid, gid_t gid,
                 mode_t mode) {
  std::ofstream(path) << text;
  ASSERT_EQ(chown(path.c_str(), uid, gid), 0) << path;
  ASSERT_EQ(chmod(path.c_str(), mode), 0) << path;
}

void make_owned_folder(const std::string& path, uid_t uid, gid_t gid, mode_t mode) {
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0) << path;
  ASSERT_EQ(chown(path.c_str(), uid, gid), 0) << path;
  ASSERT_EQ(chmod(path.c_str(), mode), 0) << path;
}

std::string text_of(const json& response) {
  return McpProcess::text_of(response);
}

bool refused(const json& response) {
  return McpProcess::is_tool_error(response);
}

struct Case {
  uid_t owner;  // of the shared folder and of the files the owner may use
  gid_t group;
  uid_t stranger;  // of the file and folder the owner may not use
};

// The cases this user can set up. As root: a share owned by an unprivileged user (nobody), and
// one owned by root itself, each holding a stranger's 0600 file and 0700 folder; the server must
// refuse both as the owner's own access would. As a user (who cannot give files away), the
// user's own share holds a file and a folder the user has no rights to: still refused, still as
// the owner's rights say, as before.
std::vector<Case> cases() {
  if (geteuid() == 0) return {{65534, 65534, kStranger}, {0, 0, kStranger}};
  return {{geteuid(), getegid(), geteuid()}};
}

TEST(TransferRights, TransfersUseTheShareOwnersRightsNeverRoots) {
  for (const Case& test : cases()) {
    SCOPED_TRACE("share owner uid " + std::to_string(test.owner));
    TempFolder share("transfer-rights");
    ASSERT_EQ(chown(share.path().c_str(), test.owner, test.group), 0);
    write_owned(share / "mine.txt", "the owner's\n", test.owner, test.group, 0600);
    // A stranger's file and folder; for a user's own, no rights at all stand in for them.
    bool own = test.stranger == test.owner;
    write_owned(share / "theirs.txt", "secret of another user\n", test.stranger, test.stranger,
                own ? 0000 : 0600);
    make_owned_folder(share / "theirs", test.stranger, test.stranger, own ? 0500 : 0700);

    McpProcess server({"--share", share.path() + "=data:rw"});
    json created;
    std::string session = server.open_session(1, json::object(), &created);
    ASSERT_FALSE(session.empty()) << created.dump();

    server.call(2, "upload_file", {{"session_id", session}, {"host_path", "data/mine.txt"}});
    json mine = server.wait_for(2);
    EXPECT_FALSE(refused(mine)) << text_of(mine);

    server.call(3, "upload_file", {{"session_id", session}, {"host_path", "data/theirs.txt"}});
    json theirs = server.wait_for(3);
    EXPECT_TRUE(refused(theirs)) << text_of(theirs);
    std::string denied = "Permission denied for uid " + std::to_string(test.owner);
    EXPECT_NE(text_of(theirs).find(denied), std::string::npos) << text_of(theirs);
    server.call(4, "read_file", {{"session_id", session}, {"path", "theirs.txt"}});
    EXPECT_EQ(text_of(server.wait_for(4)).find("secret of another user"), std::string::npos);

    server.call(5, "upload_file",
                {{"session_id", session}, {"host_path", "data/theirs"}, {"recursive", true}});
    json folder = server.wait_for(5);
    if (!own) {
      EXPECT_TRUE(refused(folder)) << text_of(folder);
    }

    server.call(6, "write_file",
                {{"session_id", session}, {"path", "out.txt"}, {"content", "from the model\n"}});
    ASSERT_FALSE(refused(server.wait_for(6)));
    server.call(
        7, "download_file",
        {{"session_id", session}, {"path", "out.txt"}, {"host_path", "data/theirs/out.txt"}});
    json into_theirs = server.wait_for(7);
    EXPECT_TRUE(refused(into_theirs)) << text_of(into_theirs);
    EXPECT_NE(text_of(into_theirs).find(denied), std::string::npos) << text_of(into_theirs);
    EXPECT_FALSE(std::filesystem::exists(share / "theirs/out.txt"));
    // Nor a new folder inside the stranger's.
    server.call(
        8, "download_file",
        {{"session_id", session}, {"path", "out.txt"}, {"host_path", "data/theirs/new/out.txt"}});
    EXPECT_TRUE(refused(server.wait_for(8)));
    EXPECT_FALSE(std::filesystem::exists(share / "theirs/new"));

    // What the owner may do still works, and what it makes is the owner's.
    server.call(9, "download_file",
                {{"session_id", session}, {"path", "out.txt"}, {"host_path", "data/made/out.txt"}});
    json made = server.wait_for(9);
    EXPECT_FALSE(refused(made)) << text_of(made);
    EXPECT_EQ(read_file(share / "made/out.txt"), "from the model\n");
    struct stat info {};
    ASSERT_EQ(stat((share / "made/out.txt").c_str(), &info), 0);
    EXPECT_EQ(info.st_uid, test.owner);
    ASSERT_EQ(stat((share / "made").c_str(), &info), 0);
    EXPECT_EQ(info.st_uid, test.owner);
  }
}

}  // namespace
}  // namespace paddock::testing::transfer_rights_test
