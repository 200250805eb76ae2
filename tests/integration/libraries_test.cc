// Library installs: the install step alone gets (rootless, user-mode) network, the run does
// not; a failed install is a clear result; a library name cannot smuggle installer options.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"

namespace paddock::testing {
namespace {

nlohmann::json run_json(const std::vector<std::string>& args, int* exit_status = nullptr) {
  CliResult result = run_cli(args);
  if (exit_status != nullptr) *exit_status = result.exit_status;
  nlohmann::json json = nlohmann::json::parse(result.out, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << result.out << result.err;
  return json;
}

// A one-module wheel in a fresh directory, served over HTTP on 127.0.0.1 by python3.
class LocalWheelServer {
 public:
  LocalWheelServer() {
    directory_ = ::testing::TempDir() + "/paddock-wheels-" + std::to_string(getpid());
    std::string make_wheel =
        "import zipfile,base64,hashlib,sys\n"
        "n='paddock_local_pkg';v='1.0';d=n+'-'+v+'.dist-info'\n"
        "f={n+'/__init__.py':\"VALUE='from the local index'\\n\","
        "d+'/METADATA':'Metadata-Version: 2.1\\nName: paddock-local-pkg\\nVersion: '+v+'\\n',"
        "d+'/WHEEL':'Wheel-Version: 1.0\\nGenerator: paddock\\nRoot-Is-Purelib: true\\n"
        "Tag: py3-none-any\\n'}\n"
        "r=[p+',sha256='+base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest())"
        ".rstrip(b'=').decode()+','+str(len(t)) for p,t in f.items()]+[d+'/RECORD,,']\n"
        "f[d+'/RECORD']='\\n'.join(r)+'\\n'\n"
        "z=zipfile.ZipFile(sys.argv[1]+'/'+n+'-'+v+'-py3-none-any.whl','w')\n"
        "[z.writestr(p,t) for p,t in f.items()];z.close()\n";
    EXPECT_EQ(system(("mkdir -p " + directory_ + " && python3 -c \"" + escape(make_wheel) + "\" " +
                      directory_)
                         .c_str()),
              0);
    port_ = 20000 + getpid() % 20000;
    server_ = fork();
    if (server_ == 0) {
      execlp("python3", "python3", "-m", "http.server", std::to_string(port_).c_str(), "--bind",
             "127.0.0.1", "--directory", directory_.c_str(), nullptr);
      _exit(127);
    }
    usleep(700000);  // python's start-up
  }
  ~LocalWheelServer() {
    kill(server_, SIGKILL);
    waitpid(server_, nullptr, 0);
    std::system(("rm -rf " + directory_).c_str());
  }
  [[nodiscard]] int port() const { return port_; }

 private:
  static std::string escape(const std::string& code) {
    std::string out;
    for (char c : code) {
      if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
      out += c;
    }
    return out;
  }
  std::string directory_;
  int port_ = 0;
  pid_t server_ = -1;
};

// The host's loopback is out of the installer's reach unless a port of it is named: a package
// mirror on the host, as a user would run one.
TEST(Libraries, PipInstallsFromALocalIndexAndTheRunHasNoNetwork) {
  LocalWheelServer server;
  std::string port = std::to_string(server.port());
  std::string links = "http://127.0.0.1:" + port + "/";
  nlohmann::json result = run_json(
      {"run", "--json", "--lang", "python", "--lib", "paddock-local-pkg", "--host-loopback-port",
       port, "--env", "PIP_NO_INDEX=1", "--env", "PIP_FIND_LINKS=" + links, "--code",
       "import socket, paddock_local_pkg\nprint(paddock_local_pkg.VALUE)\n"
       "try:\n    socket.create_connection(('127.0.0.1', " +
           port +
           "), timeout=3)\n    print('run has network')\n"
           "except OSError:\n    print('run has no network')\n"});
  EXPECT_EQ(result["phase"], "run") << result["stderr"];
  EXPECT_EQ(result["exit_code"], 0) << result["stderr"];
  EXPECT_EQ(result["stdout"], "from the local index\nrun has no network\n");
  EXPECT_NE(result["stderr"].get<std::string>().find("Successfully installed"), std::string::npos);
}

// The installer's network is the fenced user network: without the port named, the same local
// index on the host's loopback is out of reach (through the sandbox's loopback and the gateway).
TEST(Libraries, TheInstallerCannotReachTheHostsLoopbackUnlessAPortIsNamed) {
  LocalWheelServer server;
  std::string port = std::to_string(server.port());
  nlohmann::json result =
      run_json({"run", "--json", "--lang", "python", "--lib", "paddock-local-pkg", "--env",
                "PIP_NO_INDEX=1", "--env", "PIP_FIND_LINKS=http://127.0.0.1:" + port + "/", "--env",
                "PIP_DEFAULT_TIMEOUT=3", "--env", "PIP_RETRIES=0", "--code", "print('never')"});
  EXPECT_EQ(result["phase"], "install") << result["stderr"];
  EXPECT_EQ(result["stdout"], "");
  EXPECT_EQ(result["stderr"].get<std::string>().find("Successfully installed"), std::string::npos)
      << result["stderr"];
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
}  // namespace paddock::testing
