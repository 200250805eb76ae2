// A download is written to a temporary file beside its target, then renamed over it. Code with
// a read-write mount of the share can plant files there: the temporary names must be ones it
// cannot guess, so that planting them blocks no download, and a planted link is never written
// through (issue 36, item 15).

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::download_temporary_test {
namespace {

using json = nlohmann::json;

std::string text_of(const json& response) {
  return McpProcess::text_of(response);
}

TEST(DownloadTemporary, PlantedTemporaryNamesNeitherBlockNorRedirectADownload) {
  TempFolder results("download-temporary");
  TempFolder outside("download-victim");
  // A read-write mount writes as the folder's owner, who is never root.
  if (geteuid() == 0) {
    ASSERT_EQ(chown(results.path().c_str(), 65534, 65534), 0);
  }
  std::string victim = outside / "victim.txt";
  { std::ofstream(victim) << "untouched\n"; }
  McpProcess server({"--share", results.path() + "=results:rw"});
  json created;
  std::string session = server.open_session(
      1,
      {{"mounts", json::array({{{"share", "results"}, {"path", "/mnt/results"}, {"rw", true}}})}},
      &created);
  ASSERT_FALSE(session.empty()) << created.dump();
  // The names the server used to try, for its own pid: every one a link to a file outside.
  std::string plant =
      "import os\n"
      "for n in range(200):\n"
      "    os.symlink('" +
      victim + "', '/mnt/results/.report.txt.paddock-" + std::to_string(server.pid()) +
      "-%d.part' % n)\n"
      "open('report.txt', 'w').write('the report\\n')\n"
      "print(len(os.listdir('/mnt/results')))\n";
  server.call(2, "execute_code", {{"session_id", session}, {"code", plant}});
  json planted = server.wait_for(2);
  ASSERT_EQ(planted["result"]["structuredContent"]["stdout"], "200\n") << text_of(planted);

  server.call(
      3, "download_file",
      {{"session_id", session}, {"path", "report.txt"}, {"host_path", "results/report.txt"}});
  json downloaded = server.wait_for(3);
  EXPECT_FALSE(McpProcess::is_tool_error(downloaded)) << text_of(downloaded);
  EXPECT_EQ(read_file(results / "report.txt"), "the report\n");
  EXPECT_FALSE(std::filesystem::is_symlink(results / "report.txt"));
  // With overwrite too: a second download replaces the file, not a planted link's target.
  server.call(4, "download_file",
              {{"session_id", session},
               {"path", "report.txt"},
               {"host_path", "results/report.txt"},
               {"overwrite", true}});
  json again = server.wait_for(4);
  EXPECT_FALSE(McpProcess::is_tool_error(again)) << text_of(again);
  EXPECT_EQ(read_file(victim), "untouched\n");
  std::size_t links = 0;
  std::size_t others = 0;
  for (const auto& name : directory_entries(results.path())) {
    if (std::filesystem::is_symlink(results / name)) {
      ++links;
    } else if (name != "report.txt") {
      ++others;  // a temporary file left behind
    }
  }
  EXPECT_EQ(links, 200u);
  EXPECT_EQ(others, 0u);
}

}  // namespace
}  // namespace paddock::testing::download_temporary_test
