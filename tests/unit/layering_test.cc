// The floors of the house: each source folder includes only from itself and the floors below it,
// and every include of paddock's own headers is written with its folder ("rootfs/image_store.h"),
// so the floor an include comes from can be read where it is written.

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::layering_test {
namespace {

namespace fs = std::filesystem;

// Bottom to top. Folders on the same floor are siblings and may not include each other.
const std::map<std::string, int>& floors() {
  static const std::map<std::string, int> kFloors = {
      {"core", 0},
      {"http", 1},
      {"net/http1", 1},    // the one strict HTTP/1 head and body parser: no sockets
      {"net/io", 1},       // the one event loop, for both directions
      {"net/egress", 2},   // outbound: the allowlist, the proxy, brokered secrets
      {"net/preview", 2},  // inbound: a sandbox's ports opened from the host
      {"rootfs", 2},
      {"state", 3},    // what outlives a server: workspaces on disk, snapshots, archives
      {"runtime", 3},  // the interfaces: Backend, Session, SandboxShape, RunPlan, their pieces
      {"runtime/native/seccomp", 4},  // profiles to BPF
      {"runtime/native/cgroup", 4},
      {"runtime/native/init", 4},  // what runs inside paddock-init, and its plan
      {"runtime/native", 5},       // the native backend's host side
      {"runtime/container", 4},
      {"runtime/engine", 5},
      {"runtime/kube", 5},
      {"language", 6},
      {"app", 7},     // running calls, the warm pool, sessions, shares, transfers: plain results
      {"config", 8},  // the one settings table of run and mcp, resolved into typed options
      {"mcp", 8},
      {"cli", 9},
  };
  return kFloors;
}

// The folder a repository path belongs to: the longest one of floors() that holds it
// ("mcp/tools/x.cc" belongs to mcp). Empty for paths outside the floors.
std::string folder_of(const std::string& path) {
  std::string best;
  for (const auto& [folder, floor] : floors()) {
    if (path.rfind(folder + "/", 0) == 0 && folder.size() > best.size()) best = folder;
  }
  return best;
}

// Headers that are not paddock's floors: generated data, next to the policies.
bool is_data_header(const std::string& include) {
  return include == "embedded_policies.h";
}

// What is wrong with `file` including `include`, or nothing.
std::optional<std::string> violation(const std::string& file, const std::string& include) {
  if (is_data_header(include)) return std::nullopt;
  std::string from = folder_of(file);
  std::string to = folder_of(include);
  if (to.empty()) {
    return file + " includes \"" + include + "\" without its folder (write it from the root)";
  }
  if (from == to) return std::nullopt;
  int from_floor = floors().at(from);
  int to_floor = floors().at(to);
  if (to_floor < from_floor) return std::nullopt;
  return file + " (" + from + ", floor " + std::to_string(from_floor) + ") includes \"" + include +
         "\" (" + to + ", floor " + std::to_string(to_floor) + "): only lower floors may be used";
}

// Calls `use` with each file of `folder` (not of a subfolder with a floor of its own) and each
// of its includes of a quoted header.
template <typename Use>
void for_each_include(const fs::path& root, const std::string& folder, Use&& use) {
  static const std::regex kInclude(R"(^\s*#\s*include\s+\"([^\"]+)\")");
  if (!fs::is_directory(root / folder)) return;
  for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
    auto extension = entry.path().extension().string();
    if (extension != ".cc" && extension != ".h" && extension != ".in") continue;
    std::string file = fs::relative(entry.path(), root).string();
    if (folder_of(file) != folder) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch match;
    while (std::getline(in, line)) {
      if (std::regex_search(line, match, kInclude)) use(file, match[1].str());
    }
  }
}

std::vector<std::string> violations_in_tree(const fs::path& root) {
  std::vector<std::string> found;
  for (const auto& [folder, floor] : floors()) {
    for_each_include(root, folder, [&](const std::string& file, const std::string& include) {
      if (auto wrong = violation(file, include)) found.push_back(*wrong);
    });
  }
  return found;
}

// mcp/ is protocol only: its tools turn JSON into a request for app/ and the result into
// content. What outlives a server (state/) and each backend's own code are app/'s to reach,
// although the floors alone would let mcp/ include them.
bool protocol_may_not_include(const std::string& include) {
  for (const char* folder :
       {"state/", "runtime/native/", "runtime/container/", "runtime/engine/", "runtime/kube/"}) {
    if (include.rfind(folder, 0) == 0) return true;
  }
  return false;
}

TEST(Layering, EveryIncludeComesFromTheSameFolderOrAFloorBelow) {
  auto found = violations_in_tree(testing::source_dir());
  std::string listed;
  for (const auto& line : found) listed += line + "\n";
  EXPECT_TRUE(found.empty()) << listed;
}

TEST(Layering, TheProtocolIncludesNeitherStateNorABackend) {
  std::string listed;
  for_each_include(testing::source_dir(), "mcp",
                   [&](const std::string& file, const std::string& include) {
                     if (protocol_may_not_include(include)) {
                       listed += file + " includes \"" + include + "\": that is app/'s work\n";
                     }
                   });
  EXPECT_TRUE(listed.empty()) << listed;
  EXPECT_TRUE(protocol_may_not_include("state/workspace_archive.h"));
  EXPECT_TRUE(protocol_may_not_include("runtime/native/native_backend.h"));
  EXPECT_FALSE(protocol_may_not_include("runtime/session.h"));
  EXPECT_FALSE(protocol_may_not_include("app/session_export.h"));
}

TEST(Layering, EveryFloorIsAFolderOfTheTree) {
  for (const auto& [folder, floor] : floors()) {
    EXPECT_TRUE(fs::is_directory(fs::path(testing::source_dir()) / folder)) << folder;
  }
}

TEST(Layering, AnIncludeThatReachesUpIsNamed) {
  auto wrong = violation("rootfs/image_store.cc", "runtime/sandbox_spec.h");
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->find("only lower floors"), std::string::npos) << *wrong;
  EXPECT_TRUE(violation("mcp/tools/read_file.cc", "cli/output.h").has_value());
  EXPECT_TRUE(violation("runtime/sandbox_spec.h", "runtime/native/init/child.h").has_value());
}

// app/ returns plain results: MCP's types (content blocks, a tool's context) are above them.
TEST(Layering, TheAppIncludesNothingOfMcp) {
  EXPECT_TRUE(violation("app/session_registry.cc", "mcp/content.h").has_value());
  EXPECT_TRUE(violation("app/output_progress.h", "mcp/tool.h").has_value());
  EXPECT_FALSE(violation("mcp/tools/read_file.cc", "app/client_view.h").has_value());
}

// The settings table fills the typed options of app/; only the top floor reads the table.
TEST(Layering, TheSettingsTableSitsBetweenTheAppAndTheCommandLine) {
  EXPECT_FALSE(violation("config/options.h", "app/server_config.h").has_value());
  EXPECT_FALSE(violation("cli/command_line.cc", "config/table.h").has_value());
  EXPECT_TRUE(violation("config/table.cc", "cli/host_paths.h").has_value());
  EXPECT_TRUE(violation("app/code_runner.cc", "config/options.h").has_value());
  EXPECT_TRUE(violation("mcp/server.cc", "config/settings.h").has_value());
}

TEST(Layering, SiblingsOnOneFloorDoNotIncludeEachOther) {
  EXPECT_TRUE(violation("runtime/kube/kube_exec.cc", "runtime/engine/engine_client.h").has_value());
  EXPECT_TRUE(violation("runtime/engine/docker_exec.cc", "runtime/kube/kube_client.h").has_value());
  EXPECT_TRUE(
      violation("runtime/container/tar_reader.cc", "runtime/native/artifacts.h").has_value());
}

TEST(Layering, AnIncludeWithoutItsFolderIsNamed) {
  auto wrong = violation("mcp/server.cc", "server_state.h");
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->find("without its folder"), std::string::npos) << *wrong;
}

TEST(Layering, IncludesFromBelowAndWithinAreFine) {
  EXPECT_FALSE(violation("cli/run_command.cc", "mcp/server.h").has_value());
  EXPECT_FALSE(violation("mcp/tools/read_file.cc", "mcp/session_files.h").has_value());
  EXPECT_FALSE(
      violation("runtime/kube/kube_exec.cc", "runtime/container/exec_transport.h").has_value());
  EXPECT_FALSE(violation("rootfs/image_pull.cc", "core/result.h").has_value());
  EXPECT_FALSE(violation("policies/x.cc", "embedded_policies.h").has_value());
}

}  // namespace
}  // namespace paddock::layering_test
