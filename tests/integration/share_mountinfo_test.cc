// A documented fact (docs/shares.md, issue 36 item 16): a share mounted into a session shows
// its host folder in the sandbox's /proc/self/mountinfo, as every bind mount does (the
// folder's path within its file system: its whole host path when it lies on the root file
// system). So a folder whose name is a secret should not be shared. This test keeps the
// documentation honest: it fails if the kernel or paddock ever hides the path.

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing {
namespace {

using json = nlohmann::json;

TEST(ShareMountinfo, AMountedShareShowsItsHostFolderInMountinfo) {
  TempFolder data("mountinfo-named-folder");
  McpProcess server({"--share", data.path() + "=data"});
  json created;
  std::string session = server.open_session(
      1, {{"mounts", json::array({{{"share", "data"}, {"path", "/mnt/data"}}})}}, &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  server.call(2, "execute_code",
              {{"session_id", session},
               {"code",
                "for line in open('/proc/self/mountinfo'):\n"
                "    if ' /mnt/data ' in line:\n"
                "        print(line.split()[3])\n"}});
  json shown = server.wait_for(2);
  std::string root = shown["result"]["structuredContent"].value("stdout", "");
  std::string name = data.path().substr(data.path().rfind('/'));  // "/paddock-mountinfo-..."
  EXPECT_NE(root.find(name), std::string::npos) << shown.dump();
  EXPECT_NE(root.find("mountinfo-named-folder"), std::string::npos) << shown.dump();
}

}  // namespace
}  // namespace paddock::testing
