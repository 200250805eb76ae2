// A documented fact (docs/shares.md, issue 36 item 16): a share mounted read-write into a
// session shows its host folder in the sandbox's /proc/self/mountinfo, as every bind mount does
// (the folder's path within its file system: its whole host path when it lies on the root file
// system). So a folder whose name is a secret should not be shared read-write. A read-only mount
// is an overlay whose layers paddock-init named by its own fds (/proc/self/fd/N), so it shows
// neither the path nor the name. This test keeps the documentation honest both ways.

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::share_mountinfo_test {
namespace {

using json = nlohmann::json;

TEST(ShareMountinfo, AReadWriteMountShowsItsHostFolderAndAReadOnlyOneDoesNot) {
  TempFolder data("mountinfo-named-folder");
  TempFolder out("mountinfo-written-folder");
  // A root server refuses a read-write mount of a folder root owns: sandboxes never write as
  // host root. The folder goes to an unprivileged owner, as a user's folder would be.
  if (geteuid() == 0) {
    ASSERT_EQ(chown(out.path().c_str(), 65534, 65534), 0);
  }
  McpProcess server({"--share", data.path() + "=data", "--share", out.path() + "=out:rw"});
  json created;
  std::string session = server.open_session(
      1,
      {{"mounts", json::array({{{"share", "data"}, {"path", "/mnt/data"}},
                               {{"share", "out"}, {"path", "/mnt/out"}, {"rw", true}}})}},
      &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  server.call(2, "execute_code",
              {{"session_id", session},
               {"code",
                "for line in open('/proc/self/mountinfo'):\n"
                "    for where in (' /mnt/data ', ' /mnt/out '):\n"
                "        if where in line:\n"
                "            print(where.strip(), line.strip())\n"}});
  json shown = server.wait_for(2);
  std::string lines = shown["result"]["structuredContent"].value("stdout", "");
  std::string read_only, read_write;
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t end = lines.find('\n', at);
    std::string line = lines.substr(at, end - at);
    at = end == std::string::npos ? lines.size() : end + 1;
    (line.starts_with("/mnt/data ") ? read_only : read_write) += line;
  }
  ASSERT_FALSE(read_only.empty()) << shown.dump();
  ASSERT_FALSE(read_write.empty()) << shown.dump();
  EXPECT_NE(read_write.find(out.path().substr(out.path().rfind('/'))), std::string::npos)
      << read_write;
  EXPECT_EQ(read_only.find("mountinfo-named-folder"), std::string::npos) << read_only;
  EXPECT_NE(read_only.find(" overlay "), std::string::npos) << read_only;
}

}  // namespace
}  // namespace paddock::testing::share_mountinfo_test
