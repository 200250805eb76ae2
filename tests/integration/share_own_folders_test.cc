// A share mounted over paddock's own folders in /work (issue 49, item 13): at .paddock/python it
// replaced paddock's sitecustomize, which every python call of the session then ran from the
// share; at .local it replaced python's user site, where installs go and whose usercustomize runs
// too. Both must be refused with one line, before any sandbox is made.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::share_own_folders_test {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

TEST(ShareOwnFolders, AShareOverPaddocksSitecustomizeOrThePythonUserSiteIsRefused) {
  TempFolder share("own-folders-share");
  // What the share would put in paddock's place: a sitecustomize, and a user site whose
  // usercustomize runs at every start.
  std::ofstream(share / "sitecustomize.py") << "print('SHADOWED: sitecustomize from the share')\n";
  std::string site = share / "lib/python3.11/site-packages";
  fs::create_directories(site);
  std::ofstream(site + "/usercustomize.py") << "print('SHADOWED: usercustomize from the share')\n";
  for (const auto& entry : fs::recursive_directory_iterator(share.path())) {
    chmod(entry.path().c_str(), entry.is_directory() ? 0755 : 0644);
  }
  McpProcess server({"--share", share.path() + "=lib", "--warm", "0"});
  int id = 0;
  for (const char* path : {".paddock/python", "/work/.local", ".paddock"}) {
    SCOPED_TRACE(path);
    json answer;
    std::string session = server.open_session(
        ++id, {{"live", false}, {"mounts", json::array({{{"share", "lib"}, {"path", path}}})}},
        &answer);
    if (session.empty()) {
      std::string said = McpProcess::text_of(answer);
      EXPECT_TRUE(McpProcess::is_tool_error(answer)) << answer.dump();
      EXPECT_NE(said.find("which paddock keeps for itself in this session"), std::string::npos)
          << said;
      EXPECT_EQ(said.find('\n'), std::string::npos) << said;
      continue;
    }
    ADD_FAILURE() << "a share was mounted at " << path;
    server.call(++id, "execute_code", {{"session_id", session}, {"code", "print('the code')"}});
    json ran = server.wait_for(id, std::chrono::seconds(120));
    std::string out = ran.is_object() && ran.contains("result")
                          ? ran["result"]["structuredContent"].value("stdout", "")
                          : ran.dump();
    EXPECT_EQ(out.find("SHADOWED"), std::string::npos) << "the share ran as paddock's: " << out;
    server.call(++id, "close_session", {{"session_id", session}});
    server.wait_for(id);
  }
  // Beside them, a share mounts as before.
  json answer;
  std::string session = server.open_session(
      ++id, {{"live", false}, {"mounts", json::array({{{"share", "lib"}, {"path", "lib"}}})}},
      &answer);
  EXPECT_FALSE(session.empty()) << answer.dump();
}

}  // namespace
}  // namespace paddock::testing::share_own_folders_test
