// The library installer has network; the program and the caller's files do not. Nothing they can
// write may run, be imported or be read as configuration by the installer: these tests plant
// hooks both ways (through execute_code's `files`, and from an earlier call in a session) and
// show that the installer never ran or read them, while the install itself still worked.

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing::installer_isolation_test {
namespace {

using json = nlohmann::json;

// Planted python hooks say so on stderr, but only inside pip: the program's own python imports
// the same files, and that is the program's business.
constexpr const char* kPlantedSitecustomize =
    "import sys\n"
    "if b'pip' in open('/proc/self/cmdline', 'rb').read():\n"
    "    sys.stderr.write('PLANTED-SITECUSTOMIZE-RAN-IN-INSTALLER\\n')\n";
constexpr const char* kPlantedPth =
    "import sys; b'pip' in open('/proc/self/cmdline', 'rb').read() and "
    "sys.stderr.write('PLANTED-PTH-RAN-IN-INSTALLER\\n')\n";
// pip says "Using pip ... from" only when verbose: a pip.conf it read would make it so.
constexpr const char* kPlantedPipConf = "[global]\nverbose = 1\n";
// An npm that read this would fetch from a registry that refuses at once (the sandbox's own
// loopback), and say so.
constexpr const char* kPlantedNpmrc =
    "registry=http://127.0.0.1:9/planted-registry/\nfetch-retries=0\n";

void expect_no_planted_python_hook(const std::string& output) {
  EXPECT_EQ(output.find("PLANTED-SITECUSTOMIZE"), std::string::npos) << output;
  EXPECT_EQ(output.find("PLANTED-PTH"), std::string::npos) << output;
  EXPECT_EQ(output.find("Using pip"), std::string::npos) << output;
  // pip did run: pip itself comes with the host's python, so pip needs no index to be satisfied
  // (not numpy: a library the policy lists as preinstalled is not handed to pip at all).
  EXPECT_NE(output.find("Requirement already satisfied: pip"), std::string::npos) << output;
}

std::string user_site_of_host_python() {
  CliResult version =
      run_cli({"run", "--", "python3", "-c",
               "import site; print(site.getusersitepackages().split('/work/')[1])"});
  EXPECT_EQ(version.exit_status, 0) << version.err;
  return version.out.substr(0, version.out.find('\n'));
}

TEST(InstallerIsolation, PythonFilesCannotPlantHooksInPip) {
  McpProcess server;
  json files = json::array(
      {{{"path", ".paddock/python/sitecustomize.py"}, {"content", kPlantedSitecustomize}},
       {{"path", user_site_of_host_python() + "/planted.pth"}, {"content", kPlantedPth}},
       {{"path", ".config/pip/pip.conf"}, {"content", kPlantedPipConf}},
       {{"path", ".pip/pip.conf"}, {"content", kPlantedPipConf}}});
  server.call(1, "execute_code",
              {{"language", "python"},
               {"libraries", {"pip"}},
               {"files", files},
               {"code", "import numpy\nprint('ran')"}});
  json result = server.wait_for(1, std::chrono::seconds(120))["result"]["structuredContent"];
  EXPECT_EQ(result["stdout"], "ran\n") << result;
  expect_no_planted_python_hook(result["stderr"]);
}

TEST(InstallerIsolation, AnEarlierSessionCallCannotPlantHooksInPip) {
  McpProcess server;
  server.call(1, "create_session", {{"language", "python"}});
  std::string session = server.wait_for(1)["result"]["structuredContent"]["session_id"];
  server.call(2, "execute_code",
              {{"session_id", session},
               {"code", std::string("import os, site\n"
                                    "def plant(path, text):\n"
                                    "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"
                                    "    open(path, 'w').write(text)\n"
                                    "plant('/work/.paddock/python/sitecustomize.py', ") +
                            json(kPlantedSitecustomize).dump() +
                            ")\nplant(site.getusersitepackages() + '/planted.pth', " +
                            json(kPlantedPth).dump() + ")\nplant('/work/.config/pip/pip.conf', " +
                            json(kPlantedPipConf).dump() + ")\nprint('planted')\n"}});
  EXPECT_EQ(server.wait_for(2)["result"]["structuredContent"]["stdout"], "planted\n");
  server.call(3, "install_libraries", {{"session_id", session}, {"libraries", {"pip"}}});
  json installed = server.wait_for(3, std::chrono::seconds(120))["result"];
  EXPECT_EQ(installed["isError"], false) << installed;
  expect_no_planted_python_hook(installed["structuredContent"]["output"]);
}

TEST(InstallerIsolation, JavascriptFilesCannotConfigureNpm) {
  McpProcess server;
  server.call(1, "execute_code",
              {{"language", "javascript"},
               {"libraries", {"left-pad"}},
               {"files", {{{"path", ".npmrc"}, {"content", kPlantedNpmrc}}}},
               {"code", "console.log(require('left-pad')('x', 3))"}});
  json result = server.wait_for(1, std::chrono::seconds(180))["result"]["structuredContent"];
  EXPECT_EQ(result["stderr"].get<std::string>().find("planted-registry"), std::string::npos)
      << result["stderr"];
  EXPECT_EQ(result["exit_code"], 0) << result["stderr"];
  EXPECT_EQ(result["stdout"], "  x\n");
}

TEST(InstallerIsolation, AnEarlierSessionCallCannotConfigureNpm) {
  McpProcess server;
  server.call(1, "create_session", {{"language", "javascript"}});
  std::string session = server.wait_for(1)["result"]["structuredContent"]["session_id"];
  server.call(2, "execute_code",
              {{"session_id", session},
               {"code", "require('fs').writeFileSync('/work/.npmrc', " +
                            json(kPlantedNpmrc).dump() + "); console.log('planted')"}});
  EXPECT_EQ(server.wait_for(2)["result"]["structuredContent"]["stdout"], "planted\n");
  server.call(3, "install_libraries", {{"session_id", session}, {"libraries", {"left-pad"}}});
  json installed = server.wait_for(3, std::chrono::seconds(180))["result"];
  std::string output = installed["structuredContent"]["output"].is_string()
                           ? installed["structuredContent"]["output"].get<std::string>()
                           : installed.dump();
  EXPECT_EQ(output.find("planted-registry"), std::string::npos) << output;
  EXPECT_EQ(installed["isError"], false) << installed;
  server.call(4, "execute_code",
              {{"session_id", session}, {"code", "console.log(require('left-pad')('x', 3))"}});
  EXPECT_EQ(server.wait_for(4)["result"]["structuredContent"]["stdout"], "  x\n");
}

}  // namespace
}  // namespace paddock::testing::installer_isolation_test

namespace paddock::testing::installer_isolation_test {
namespace {

// A python policy whose installer only records what it finds in the work directory.
class RecordingInstaller {
 public:
  RecordingInstaller() {
    char pattern[] = "/tmp/paddock-recording-installer-XXXXXX";
    EXPECT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ + "/python.json")
        << R"({"name": "python", "install": ["sh", "-c", "ls -A /work > /tmp/installer-saw", "sh", "{libraries}"]})";
    chmod(dir_.c_str(), 0755);
    chmod((dir_ + "/python.json").c_str(), 0644);
  }
  ~RecordingInstaller() { std::filesystem::remove_all(dir_); }
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

constexpr const char* kShowWhatTheInstallerSaw =
    "import os\nprint(open('/tmp/installer-saw').read().split())\n"
    "print(os.path.exists('caller-file.txt'))";

// The caller's files are written after the install step: an installer never sees them (and so
// cannot be steered by a setup.py or a config file among them), the program does.
TEST(InstallerIsolation, TheCallersFilesComeAfterTheInstaller) {
  RecordingInstaller policy;
  McpProcess server({"--policy-dir", policy.dir()});
  json files = json::array({{{"path", "caller-file.txt"}, {"content", "from the caller"}}});
  server.call(1, "execute_code",
              {{"language", "python"},
               {"libraries", {"anything"}},
               {"files", files},
               {"code", kShowWhatTheInstallerSaw}});
  json result = server.wait_for(1, std::chrono::seconds(60))["result"]["structuredContent"];
  EXPECT_EQ(result["stdout"].get<std::string>().find("caller-file.txt"), std::string::npos)
      << "the installer saw the caller's file: " << result;
  EXPECT_NE(result["stdout"].get<std::string>().find("\nTrue\n"), std::string::npos) << result;

  // In a session too.
  server.call(2, "create_session", {{"language", "python"}});
  std::string session =
      server.wait_for(2, std::chrono::seconds(60))["result"]["structuredContent"]["session_id"];
  server.call(3, "execute_code",
              {{"session_id", session},
               {"libraries", {"anything"}},
               {"files", files},
               {"code", kShowWhatTheInstallerSaw}});
  result = server.wait_for(3, std::chrono::seconds(60))["result"]["structuredContent"];
  EXPECT_EQ(result["stdout"].get<std::string>().find("caller-file.txt"), std::string::npos)
      << "the session's installer saw the caller's file: " << result;
  EXPECT_NE(result["stdout"].get<std::string>().find("\nTrue\n"), std::string::npos) << result;
}

}  // namespace
}  // namespace paddock::testing::installer_isolation_test
