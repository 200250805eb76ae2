// Library installs: the install step alone gets (rootless, user-mode) network, the run does
// not; a failed install is a clear result; a library name cannot smuggle installer options.

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"

namespace paddock::testing::libraries_test {
namespace {

nlohmann::json run_json(const std::vector<std::string>& args, int* exit_status = nullptr) {
  CliResult result = run_cli(args);
  if (exit_status != nullptr) *exit_status = result.exit_status;
  nlohmann::json json = nlohmann::json::parse(result.out, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << result.out << result.err;
  return json;
}

// tests/support/package_mirror.py in a fresh directory: the wheel paddock-probe served on the
// host's 127.0.0.1, as a package mirror a user would run there.
class LocalMirror {
 public:
  LocalMirror()
      : directory_(fresh_directory()),
        server_({"/usr/bin/python3", source_dir() + "/tests/support/package_mirror.py", directory_},
                directory_ + "/port") {}
  LocalMirror(const LocalMirror&) = delete;
  LocalMirror& operator=(const LocalMirror&) = delete;
  ~LocalMirror() {
    server_.stop();
    std::filesystem::remove_all(directory_);
  }
  [[nodiscard]] std::string port() const { return server_.port(); }
  // The paths asked of the mirror so far, a line each.
  [[nodiscard]] std::string requests() const { return read_file(directory_ + "/requests.log"); }

 private:
  static std::string fresh_directory() {
    std::string directory = ::testing::TempDir() + "/paddock-mirror-" + std::to_string(getpid());
    std::filesystem::create_directories(directory);
    return directory;
  }
  std::string directory_;
  Server server_;
};

// The host's loopback is out of the installer's reach unless a port of it is named: a package
// mirror on the host, as a user would run one.
TEST(Libraries, PipInstallsFromALocalIndexAndTheRunHasNoNetwork) {
  LocalMirror mirror;
  std::string port = mirror.port();
  ASSERT_FALSE(port.empty());
  std::string links = "http://127.0.0.1:" + port + "/";
  nlohmann::json result = run_json({"run", "--json", "--lang", "python", "--lib", "paddock-probe",
                                    "--host-loopback-port", port, "--env", "PIP_NO_INDEX=1",
                                    "--env", "PIP_FIND_LINKS=" + links, "--code",
                                    "import socket, paddock_probe\nprint(paddock_probe.VALUE)\n"
                                    "try:\n    socket.create_connection(('127.0.0.1', " +
                                        port +
                                        "), timeout=3)\n    print('run has network')\n"
                                        "except OSError:\n    print('run has no network')\n"});
  EXPECT_EQ(result["phase"], "run") << result["stderr"];
  EXPECT_EQ(result["exit_code"], 0) << result["stderr"];
  EXPECT_EQ(result["stdout"], "from the mirror\nrun has no network\n");
  EXPECT_NE(result["stderr"].get<std::string>().find("Successfully installed"), std::string::npos);
  EXPECT_NE(mirror.requests().find("/wheels/paddock_probe-1.0-py3-none-any.whl"), std::string::npos)
      << mirror.requests();
}

// --install-network, the server's row `paddock run` takes too, is laid over the policy's: the
// same install that reaches the mirror above through the policy's allowlist reaches nothing
// with none, and the mirror never hears of it.
TEST(Libraries, RunsInstallNetworkNoneKeepsTheInstallerOffline) {
  LocalMirror mirror;
  std::string port = mirror.port();
  ASSERT_FALSE(port.empty());
  int exit_status = 0;
  nlohmann::json result = run_json({"run",
                                    "--json",
                                    "--lang",
                                    "python",
                                    "--lib",
                                    "paddock-probe",
                                    "--install-network",
                                    "none",
                                    "--host-loopback-port",
                                    port,
                                    "--env",
                                    "PIP_NO_INDEX=1",
                                    "--env",
                                    "PIP_FIND_LINKS=http://127.0.0.1:" + port + "/",
                                    "--env",
                                    "PIP_RETRIES=0",
                                    "--env",
                                    "PIP_TIMEOUT=3",
                                    "--code",
                                    "import paddock_probe\n"},
                                   &exit_status);
  EXPECT_EQ(result["phase"], "install") << result.dump();
  EXPECT_NE(result["exit_code"], 0) << result["stderr"];
  EXPECT_NE(exit_status, 0);
  EXPECT_EQ(mirror.requests().find("paddock_probe"), std::string::npos) << mirror.requests();
}

// The installer's network is the fenced user network: without the port named, the same local
// index on the host's loopback is out of reach (through the sandbox's loopback and the gateway).
TEST(Libraries, TheInstallerCannotReachTheHostsLoopbackUnlessAPortIsNamed) {
  LocalMirror mirror;
  std::string port = mirror.port();
  ASSERT_FALSE(port.empty());
  nlohmann::json result =
      run_json({"run", "--json", "--lang", "python", "--lib", "paddock-probe", "--env",
                "PIP_NO_INDEX=1", "--env", "PIP_FIND_LINKS=http://127.0.0.1:" + port + "/", "--env",
                "PIP_DEFAULT_TIMEOUT=3", "--env", "PIP_RETRIES=0", "--code", "print('never')"});
  EXPECT_EQ(result["phase"], "install") << result["stderr"];
  EXPECT_EQ(result["stdout"], "");
  EXPECT_EQ(result["stderr"].get<std::string>().find("Successfully installed"), std::string::npos)
      << result["stderr"];
  EXPECT_EQ(mirror.requests(), "");  // nothing reached it, not even the listing
}

TEST(Libraries, NpmInstallsFromTheNpmRegistry) {
  nlohmann::json result = run_json({"run", "--json", "--lang", "javascript", "--lib", "left-pad",
                                    "--code", "console.log(require('left-pad')('x', 3))"});
  EXPECT_EQ(result["exit_code"], 0) << result["stderr"];
  EXPECT_EQ(result["stdout"], "  x\n");  // the installer's chatter went to stderr
}

// In a session whose calls are processes (javascript), libraries given with execute_code are
// installed through the session's proxy with the installer's own list, as install_libraries does.
TEST(Libraries, ASessionCallsLibrariesReachTheirPackageIndex) {
  McpProcess server;
  server.call(1, "create_session", {{"language", "javascript"}});
  nlohmann::json created = server.wait_for(1);
  ASSERT_FALSE(created.is_null());
  std::string session = created["result"]["structuredContent"]["session_id"];
  server.call(2, "execute_code",
              {{"session_id", session},
               {"libraries", {"left-pad"}},
               {"code", "console.log(require('left-pad')('x', 3))"}});
  nlohmann::json answer = server.wait_for(2, std::chrono::seconds(120));
  ASSERT_FALSE(answer.is_null());
  EXPECT_EQ(answer["result"]["structuredContent"]["stdout"], "  x\n") << answer.dump();
}

TEST(Libraries, AFailedInstallIsAResultNamingThePackage) {
  int status = 0;
  nlohmann::json result =
      run_json({"run", "--json", "--lang", "python", "--lib", "no-such-package-paddock-test",
                "--env", "PIP_NO_INDEX=1", "--code", "print('never')"},
               &status);
  EXPECT_NE(status, 0);
  EXPECT_EQ(result["phase"], "install");
  EXPECT_EQ(result["stdout"], "");
  EXPECT_NE(result["stderr"].get<std::string>().find("no-such-package-paddock-test"),
            std::string::npos);
}

TEST(Libraries, NamesCannotCarryInstallerOptions) {
  CliResult result = run_cli(
      {"run", "--lang", "python", "--lib", "--index-url=http://evil", "--code", "print(1)"});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_NE(result.err.find("library '--index-url=http://evil' refused: python takes"),
            std::string::npos)
      << result.err;
  CliResult spaced = run_cli({"run", "--lang", "python", "--lib", "a b", "--code", "print(1)"});
  EXPECT_EQ(spaced.exit_status, 125);
  // gem's command line has no "--" before the names (gem takes what follows it as build
  // options): the names' own pattern is what keeps an option out.
  CliResult gem =
      run_cli({"run", "--lang", "ruby", "--lib", "--source=http://evil", "--code", "puts 1"});
  EXPECT_EQ(gem.exit_status, 125);
  EXPECT_NE(gem.err.find("library '--source=http://evil' refused: ruby takes"), std::string::npos)
      << gem.err;
}

TEST(Libraries, UserNetworkIsOutboundOnlyAndGoneAfterTheRun) {
  CliResult user = run_cli({"run", "--network", "user", "--", "python3", "-c",
                            "import socket\n"
                            "socket.create_connection(('registry.npmjs.org', 443), timeout=5)\n"
                            "print('reached')"});
  EXPECT_EQ(user.out, "reached\n") << user.err;
  CliResult none = run_cli({"run", "--", "python3", "-c",
                            "import socket\ntry:\n"
                            "    socket.create_connection(('registry.npmjs.org', 443), timeout=5)\n"
                            "except OSError:\n    print('unreachable')"});
  EXPECT_EQ(none.out, "unreachable\n");
  EXPECT_TRUE(processes_of_this_user_with("--netns /proc/self/fd/5").empty());  // no pasta left
}

}  // namespace
}  // namespace paddock::testing::libraries_test
