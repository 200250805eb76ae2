// In a live session the interpreter stays while a library is installed: it is stopped, but it is
// still a process of the sandbox, and it holds the secrets the user passed through
// (--pass-through-env) in its environment and memory. The installer has network and runs code
// the package chose. These tests play that package: a Python sdist with its own build backend
// and an R package with a configure script, from a local index, both reading every other
// process's /proc/PID/environ and memory and posting what they found to the index. The secret
// must reach neither the index nor the package, while the package still sees its own processes.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"

namespace paddock::testing::live_install_isolation_test {
namespace {

using json = nlohmann::json;

// Mixed case and long enough that no other text holds it by chance.
constexpr const char* kSecret = "Pdk-Live-Secret-7fQ3xZ9c";

// tests/support/hostile_index.py in a fresh directory, on the host's 127.0.0.1.
class HostileIndex {
 public:
  HostileIndex()
      : directory_(fresh_directory()),
        server_({"/usr/bin/python3", source_dir() + "/tests/support/hostile_index.py", directory_},
                directory_ + "/port") {}
  HostileIndex(const HostileIndex&) = delete;
  HostileIndex& operator=(const HostileIndex&) = delete;
  ~HostileIndex() {
    server_.stop();
    std::filesystem::remove_all(directory_);
  }
  [[nodiscard]] std::string port() const { return server_.port(); }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + port() + "/"; }
  [[nodiscard]] std::string directory() const { return directory_; }
  [[nodiscard]] std::string stolen() const { return read_file(directory_ + "/stolen.log"); }
  [[nodiscard]] std::string requests() const { return read_file(directory_ + "/requests.log"); }

 private:
  static std::string fresh_directory() {
    std::string directory = ::testing::TempDir() + "/paddock-hostile-index-" +
                            std::to_string(getpid()) + "-" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(directory);
    return directory;
  }
  std::string directory_;
  Server server_;
};

struct Loot {
  int posts = 0;
  int processes = 0;      // other processes the package looked at
  int environs_read = 0;  // whose environment it read
  int refused = 0;        // whose environment it was refused
  bool secret_found = false;
};

// What the package posted: one JSON object per line, pid -> what it read of that process.
Loot loot_of(const std::string& stolen) {
  Loot loot;
  std::istringstream lines(stolen);
  for (std::string line; std::getline(lines, line);) {
    json found = json::parse(line, nullptr, false);
    if (!found.is_object()) continue;
    ++loot.posts;
    for (const auto& [pid, seen] : found.items()) {
      ++loot.processes;
      if (seen.contains("environ_refused")) ++loot.refused;
      if (!seen.contains("environ")) continue;
      ++loot.environs_read;
      auto environ = core::base64_decode(seen["environ"].get<std::string>());
      if (environ && environ->find(kSecret) != std::string::npos) loot.secret_found = true;
    }
  }
  return loot;
}

// Opens a live session of `language` with the secret passed through, shows the secret is in
// the interpreter, then installs `library` from the hostile index.
void install_in_live_session(const HostileIndex& index, const std::string& language,
                             const json& install_env, const std::string& library,
                             const std::string& check_code) {
  std::string policies = index.directory() + "/policies";
  std::filesystem::create_directories(policies);
  json policy = {{"name", language}, {"install_env", install_env}};
  std::ofstream(policies + "/" + language + ".json") << policy.dump();
  setenv("LIVE_TEST_API_KEY", kSecret, 1);
  McpProcess server({"--policy-dir", policies, "--host-loopback-port", index.port(),
                     "--pass-through-env", "LIVE_TEST_API_KEY"});
  unsetenv("LIVE_TEST_API_KEY");
  server.call(1, "create_session", {{"language", language}});
  json created = server.wait_for(1, std::chrono::seconds(120));
  ASSERT_FALSE(created.is_null());
  std::string session = created["result"]["structuredContent"]["session_id"];
  server.call(2, "execute_code", {{"session_id", session}, {"code", check_code}});
  json checked = server.wait_for(2, std::chrono::seconds(120))["result"]["structuredContent"];
  ASSERT_EQ(checked["stdout"], "24\n") << "the interpreter holds the secret: " << checked;
  ASSERT_EQ(checked["live"], true) << checked;
  server.call(3, "install_libraries", {{"session_id", session}, {"libraries", {library}}});
  json installed = server.wait_for(3, std::chrono::seconds(240));
  ASSERT_FALSE(installed.is_null());
  EXPECT_EQ(installed["result"]["isError"], false) << installed;
  // The interpreter is still the same one, with its secret, after the install.
  server.call(4, "execute_code", {{"session_id", session}, {"code", check_code}});
  EXPECT_EQ(server.wait_for(4, std::chrono::seconds(120))["result"]["structuredContent"]["stdout"],
            "24\n");
}

void expect_nothing_stolen(const HostileIndex& index) {
  Loot loot = loot_of(index.stolen());
  // The attack ran, from the installer, with its network: else this test could not fail.
  ASSERT_GE(loot.posts, 1) << "the package never posted; requests: " << index.requests();
  EXPECT_FALSE(loot.secret_found) << index.stolen();
  // It still sees its own processes (the installer that runs it) ...
  EXPECT_GE(loot.environs_read, 1) << index.stolen();
  // ... and is refused the interpreter's (and its bridge's, and init's).
  EXPECT_GE(loot.refused, 1) << index.stolen();
}

TEST(LiveInstallIsolation, APythonPackagesBuildCannotReadTheLiveInterpretersSecrets) {
  HostileIndex index;
  ASSERT_FALSE(index.port().empty());
  install_in_live_session(index, "python", {{"PIP_NO_INDEX", "1"}, {"PIP_FIND_LINKS", index.url()}},
                          "steal-probe", "import os\nprint(len(os.environ['LIVE_TEST_API_KEY']))");
  expect_nothing_stolen(index);
}

TEST(LiveInstallIsolation, AnRPackagesConfigureCannotReadTheLiveInterpretersSecrets) {
  HostileIndex index;
  ASSERT_FALSE(index.port().empty());
  install_in_live_session(index, "r", {{"CRAN_MIRROR", index.url()}}, "stealr",
                          "cat(nchar(Sys.getenv('LIVE_TEST_API_KEY')), '\\n', sep = '')");
  expect_nothing_stolen(index);
}

}  // namespace
}  // namespace paddock::testing::live_install_isolation_test
