// Every installer paddock's policies run (pip, npm, gem, R's install.packages, go get), each
// pointed at a package index made here (tests/support/package_index.py on the host's 127.0.0.1):
// the package installs and the code uses it; and for each way an install fails (the index cannot
// be reached, its host is not on the installer's list, there is no such package, no version fits,
// the package's build step fails) the result's first line names that cause. One test body for
// every language and cause: only the names each ecosystem spells differently are per language.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/unique_fd.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"

namespace paddock::testing::install_causes_test {
namespace {

using nlohmann::json;

// An installer as its policy runs it, and the names its ecosystem gives the index's packages.
struct Installer {
  std::string language;
  std::string index_variable;  // the policy's install_env variable the installer's index is in
  std::string index_path;      // where package_index.py serves this ecosystem
  json extra_env;              // what else the installer needs for a private index
  std::string probe;           // installs
  std::string missing;         // not in the index
  std::string conflict;        // in the index, but not in a version that fits
  std::string broken;          // in the index; its build step fails
  std::string code;            // prints the probe's value
};

const std::vector<Installer>& installers() {
  static const std::vector<Installer> kInstallers = {
      // pip ignores a plain-http index on any host but localhost unless it is trusted.
      {"python",
       "PIP_INDEX_URL",
       "/simple/",
       {{"PIP_TRUSTED_HOST", "index.test"}},
       "paddock-probe",
       "paddock-nope",
       "paddock-probe==9.9",
       "paddock-broken",
       "import paddock_probe\nprint(paddock_probe.VALUE)\n"},
      {"javascript", "npm_config_registry", "/npm/", json::object(), "paddock-probe",
       "paddock-nope", "paddock-probe@9.9.9", "paddock-broken",
       "console.log(require('paddock-probe'))\n"},
      {"ruby", "GEM_SOURCE", "/gem/", json::object(), "paddock_probe", "paddock_nope",
       "paddock_probe:9.9", "paddock_broken",
       "require 'paddock_probe'\nputs PaddockProbe::VALUE\n"},
      {"r", "CRAN_MIRROR", "/cran", json::object(), "paddockProbe", "paddockNope", "paddockNewer",
       "paddockBroken", "cat(paddockProbe::probe(), \"\\n\", sep = \"\")\n"},
      // A private module is not in the public checksum database.
      {"go",
       "GOPROXY",
       "/go",
       {{"GONOSUMDB", "paddock.test"}},
       "paddock.test/probe",
       "paddock.test/nope",
       "paddock.test/probe@v9.9.9",
       "paddock.test/broken",
       "package main\n\nimport (\n\t\"fmt\"\n\n\t\"paddock.test/probe\"\n)\n\n"
       "func main() { fmt.Println(probe.Value) }\n"},
  };
  return kInstallers;
}

enum class Case {
  kInstalls,
  kUnreachable,
  kRefusedHost,
  kUnknownPackage,
  kVersionConflict,
  kBuildFails
};

const char* name_of(Case which) {
  switch (which) {
    case Case::kInstalls:
      return "Installs";
    case Case::kUnreachable:
      return "UnreachableIndex";
    case Case::kRefusedHost:
      return "RefusedHost";
    case Case::kUnknownPackage:
      return "UnknownPackage";
    case Case::kVersionConflict:
      return "VersionConflict";
    case Case::kBuildFails:
      return "BuildFails";
  }
  return "";
}

// package_index.py in a fresh directory, one for the whole suite: it builds its gems first.
class PackageIndex {
 public:
  PackageIndex()
      : directory_(::testing::TempDir() + "/paddock-index-" + std::to_string(getpid())),
        server_(start(directory_), directory_ + "/port") {}
  PackageIndex(const PackageIndex&) = delete;
  PackageIndex& operator=(const PackageIndex&) = delete;
  ~PackageIndex() {
    server_.stop();
    std::filesystem::remove_all(directory_);
  }
  [[nodiscard]] std::string port() const { return server_.port(); }
  [[nodiscard]] std::string requests() const { return read_file(directory_ + "/requests.log"); }

 private:
  static std::vector<std::string> start(const std::string& directory) {
    std::filesystem::create_directories(directory);
    return {"/usr/bin/python3", source_dir() + "/tests/support/package_index.py", directory};
  }
  std::string directory_;
  Server server_;
};

// A port of the host's loopback where nothing listens: bound, so no one else takes it while the
// test runs, but never listening, so a connect there is refused.
class ClosedPort {
 public:
  ClosedPort() : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    socklen_t length = sizeof address;
    getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&address), &length);
    port_ = std::to_string(ntohs(address.sin_port));
  }
  [[nodiscard]] const std::string& port() const { return port_; }

 private:
  core::UniqueFd fd_;
  std::string port_;
};

class InstallCauses : public ::testing::TestWithParam<std::tuple<std::size_t, Case>> {
 protected:
  static void SetUpTestSuite() { index_ = new PackageIndex; }
  static void TearDownTestSuite() {
    delete index_;
    index_ = nullptr;
  }
  static PackageIndex* index_;
};
PackageIndex* InstallCauses::index_ = nullptr;

// The index's name in the sandboxes' proxies (paddock-test-names answers it): go sends no
// loopback address through a proxy, so every installer reaches the host's 127.0.0.1 by a name.
constexpr const char* kIndexName = "index.test";

// A policy over the built-in one (PADDOCK_POLICY_DIR): the installer's index and its list.
std::string policy_directory(const Installer& installer, const std::string& index_url,
                             const std::vector<std::string>& allowed) {
  std::string directory = "/tmp/paddock-install-causes-" + std::to_string(getpid());
  std::filesystem::create_directories(directory);
  json env = installer.extra_env;
  env[installer.index_variable] = index_url;
  json policy = {{"name", installer.language},
                 {"install_env", env},
                 {"network", {{"install_allow", allowed}}}};
  std::ofstream(directory + "/" + installer.language + ".json") << policy.dump();
  return directory;
}

// `paddock mcp` as paddock-test-names, which answers the index's name: the launcher drops the
// paddock binary McpProcess would start and starts paddock-test-names with the same arguments.
std::unique_ptr<McpProcess> server_with_names(const std::string& policy_dir) {
  setenv("PADDOCK_POLICY_DIR", policy_dir.c_str(), 1);
  setenv("PADDOCK_EGRESS_TEST_RESOLVE", (std::string(kIndexName) + "=127.0.0.1").c_str(), 1);
  auto server = std::make_unique<McpProcess>(
      std::vector<std::string>{},
      std::vector<std::string>{"/bin/sh", "-c", "shift; exec \"$0\" \"$@\"",
                               paddock_test_names_binary()});
  unsetenv("PADDOCK_EGRESS_TEST_RESOLVE");
  unsetenv("PADDOCK_POLICY_DIR");
  return server;
}

TEST_P(InstallCauses, TheFirstLineNamesTheCause) {
  const Installer& installer = installers()[std::get<0>(GetParam())];
  Case which = std::get<1>(GetParam());
  std::string port = index_->port();
  ASSERT_FALSE(port.empty()) << "the package index did not start";
  ClosedPort closed;
  std::string index_port = which == Case::kUnreachable ? closed.port() : port;
  std::string index_host = std::string(kIndexName) + ":" + index_port;
  std::string index_url = "http://" + index_host + installer.index_path;
  // The name, and the loopback address it stands for (a reserved range is reached only where a
  // pattern names it). Refused: the index is where it was, but the list names another host.
  std::vector<std::string> allowed = {index_host, "127.0.0.1:" + index_port};
  if (which == Case::kRefusedHost) allowed = {"deb.debian.org"};
  std::string library = which == Case::kUnknownPackage    ? installer.missing
                        : which == Case::kVersionConflict ? installer.conflict
                        : which == Case::kBuildFails      ? installer.broken
                                                          : installer.probe;
  std::string directory = policy_directory(installer, index_url, allowed);
  auto server = server_with_names(directory);
  server->call(
      1, "execute_code",
      {{"language", installer.language}, {"code", installer.code}, {"libraries", {library}}});
  json answer = server->wait_for(1, std::chrono::seconds(300));
  server.reset();
  std::filesystem::remove_all(directory);
  ASSERT_FALSE(answer.is_null()) << "no answer";
  std::string text = McpProcess::text_of(answer);
  std::string first = text.substr(0, text.find('\n'));
  const json& structured = answer["result"]["structuredContent"];
  if (which == Case::kInstalls) {
    EXPECT_EQ(structured["stdout"], "from the index\n") << text;
    EXPECT_EQ(structured["exit_code"], 0) << text;
    return;
  }
  EXPECT_EQ(structured["phase"], "install") << text;
  EXPECT_NE(structured["exit_code"], 0) << text;
  std::string expected;
  switch (which) {
    case Case::kUnreachable:
      expected = "could not reach the package index " + index_host +
                 ": the connection failed: Connection refused";
      break;
    case Case::kRefusedHost:
      expected = "the installer was refused " + index_host +
                 " (it is not in the allowlist): only the user can allow a host (paddock mcp "
                 "--allow-host)";
      break;
    case Case::kUnknownPackage:
      expected = "no such package in the package index: check the library's name";
      break;
    case Case::kVersionConflict:
      expected =
          "the package index has no version that fits what was asked (a version conflict): ask "
          "for another version, or none";
      break;
    case Case::kBuildFails:
      expected =
          "a package's build step failed (the package's own build, not its download); its "
          "output follows";
      // And the package's own words are there to read.
      EXPECT_NE(text.find("the build step fails on purpose"), std::string::npos) << text;
      break;
    case Case::kInstalls:
      break;
  }
  EXPECT_EQ(first, expected) << text;
}

// install_libraries in a session says it the same way, in its first line.
TEST_F(InstallCauses, ASessionsInstallNamesTheCauseToo) {
  const Installer& installer = installers()[1];  // javascript: a session of processes
  std::string port = index_->port();
  ASSERT_FALSE(port.empty()) << "the package index did not start";
  std::string index_host = std::string(kIndexName) + ":" + port;
  std::string directory = policy_directory(installer, "http://" + index_host + installer.index_path,
                                           {index_host, "127.0.0.1:" + port});
  auto server = server_with_names(directory);
  std::string session = server->open_session(1, {{"language", installer.language}});
  ASSERT_FALSE(session.empty());
  server->call(2, "install_libraries",
               {{"session_id", session}, {"libraries", {installer.conflict}}});
  json answer = server->wait_for(2, std::chrono::seconds(300));
  server.reset();
  std::filesystem::remove_all(directory);
  std::string text = McpProcess::text_of(answer);
  EXPECT_TRUE(McpProcess::is_tool_error(answer)) << text;
  std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find(": the package index has no version that fits what was asked (a version "
                       "conflict): ask for another version, or none"),
            std::string::npos)
      << text;
}

INSTANTIATE_TEST_SUITE_P(
    EveryInstaller, InstallCauses,
    ::testing::Combine(::testing::Range<std::size_t>(0, 5),
                       ::testing::Values(Case::kInstalls, Case::kUnreachable, Case::kRefusedHost,
                                         Case::kUnknownPackage, Case::kVersionConflict,
                                         Case::kBuildFails)),
    [](const ::testing::TestParamInfo<InstallCauses::ParamType>& case_info) {
      return installers()[std::get<0>(case_info.param)].language + "_" +
             name_of(std::get<1>(case_info.param));
    });

}  // namespace
}  // namespace paddock::testing::install_causes_test
