// `paddock pull` against a real registry: Debian's docker-registry (the distribution registry)
// on 127.0.0.1, started and stopped here, holding a tiny image set the test builds itself
// (tests/support/oci_test_image.py: gzip, zstd and plain layers, an index with linux/amd64 and
// linux/arm64) and pushes with skopeo. One case switches on token auth, with a token service
// from tests/support/registry_token_server.py and a key made with openssl.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/image_provisioner.h"
#include "cli/backend_settings.h"
#include "cli/container_backends.h"
#include "rootfs/image_store.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/python_image.h"
#include "support/registry_server.h"

extern char** environ;

namespace paddock::testing::registry_test {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kPython = "/usr/bin/python3";

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// What a test needs and cannot do without: the registry, skopeo and the helpers' tools.
std::string missing_tools() {
  const std::pair<const char*, const char*> tools[] = {
      {"/usr/bin/docker-registry", "docker-registry"},
      {"/usr/bin/skopeo", "skopeo"},
      {kPython, "python3"},
      {"/usr/bin/openssl", "openssl"},
      {"/usr/bin/zstd", "zstd"},
      {"/bin/busybox", "busybox-static"},
  };
  for (const auto& [path, package] : tools) {
    if (access(path, X_OK) != 0) {
      return std::string(path) + " is missing (Debian package " + package + "): run scripts/setup";
    }
  }
  if (run_tool({kPython, "-c", "import jwt, cryptography"}).status != 0) {
    return "python3-jwt and python3-cryptography are missing: run scripts/setup";
  }
  return "";
}

struct Suite {
  std::string dir;
  std::string setup_error;
  int port = -1;
  std::unique_ptr<Server> registry;
  json digests;

  // skopeo's credentials file: its own, not $XDG_RUNTIME_DIR's or /run/containers/UID's (which
  // a root Podman leaves unreadable to users); this registry needs none. (Not through
  // REGISTRY_AUTH_FILE: docker-registry reads REGISTRY_* as its own configuration.)
  [[nodiscard]] std::string auth_file() const { return dir + "/skopeo-auth.json"; }

  [[nodiscard]] std::string ref(const std::string& repository_tag) const {
    return "127.0.0.1:" + std::to_string(port) + "/" + repository_tag;
  }
};
Suite* suite = nullptr;

class Registry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite = new Suite;
    suite->setup_error = missing_tools();
    if (!suite->setup_error.empty()) return;
    char dir_template[] = "/tmp/paddock-registry-XXXXXX";
    if (mkdtemp(dir_template) == nullptr) {
      suite->setup_error = "mkdtemp failed";
      return;
    }
    suite->dir = dir_template;
    ToolResult layout = run_tool(
        {kPython, source_dir() + "/tests/support/oci_test_image.py", suite->dir + "/layout"});
    if (layout.status != 0) {
      suite->setup_error = "building the test image: " + layout.output;
      return;
    }
    suite->digests = json::parse(layout.output, nullptr, false);
    suite->registry = start_registry(suite->dir, "registry", suite->dir + "/storage", "",
                                     suite->port, suite->setup_error);
    if (!suite->registry) return;
    // --preserve-digests: skopeo would otherwise gzip the plain layer on the way.
    for (const auto& [tag, target] :
         std::vector<std::pair<std::string, std::string>>{{"tiny", "test/tiny:tiny"},
                                                          {"multi", "test/tiny:multi"},
                                                          {"corrupt", "test/corrupt:latest"}}) {
      ToolResult pushed =
          run_tool({"/usr/bin/skopeo", "--insecure-policy", "copy", "--authfile",
                    suite->auth_file(), "--all", "--preserve-digests", "--dest-tls-verify=false",
                    "oci:" + suite->dir + "/layout:" + tag, "docker://" + suite->ref(target)});
      if (pushed.status != 0) {
        suite->setup_error = "skopeo copy " + tag + ": " + pushed.output;
        return;
      }
    }
    // Docker's own formats: skopeo converts the index to a manifest list on the way.
    ToolResult docker = run_tool(
        {"/usr/bin/skopeo", "--insecure-policy", "copy", "--authfile", suite->auth_file(), "--all",
         "--format", "v2s2", "--dest-tls-verify=false", "oci:" + suite->dir + "/layout:gzipped",
         "docker://" + suite->ref("test/docker:multi")});
    if (docker.status != 0) suite->setup_error = "skopeo copy gzipped: " + docker.output;
  }

  static void TearDownTestSuite() {
    if (suite->registry) {
      pid_t pid = suite->registry->pid();
      suite->registry.reset();
      EXPECT_NE(kill(pid, 0), 0) << "the registry outlived the suite";
    }
    if (!suite->dir.empty()) {
      EXPECT_TRUE(rootfs::remove_tree(suite->dir).ok());
    }
    delete suite;
    suite = nullptr;
  }

  void SetUp() override {
    ASSERT_EQ(suite->setup_error, "") << "the registry tests cannot run";
    store_ =
        suite->dir + "/store-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    setenv("PADDOCK_ROOT", store_.c_str(), 1);
    unsetenv("DOCKER_CONFIG");
  }

  void TearDown() override {
    unsetenv("PADDOCK_ROOT");
    unsetenv("DOCKER_CONFIG");
    EXPECT_TRUE(rootfs::remove_tree(store_).ok());
  }

  // A failure of paddock itself: status 125 and one line that names `names`.
  static void expect_one_line_error(const CliResult& result, const std::string& names) {
    EXPECT_EQ(result.exit_status, 125) << result.err;
    EXPECT_EQ(count_lines(result.err), 1) << result.err;
    EXPECT_EQ(result.err.rfind("paddock: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(names), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");
  }

  [[nodiscard]] std::string blob_file(const std::string& digest) const {
    return store_ + "/blobs/sha256/" + digest.substr(7);
  }

  std::string store_;
};

TEST_F(Registry, PullsAndRunsTheImage) {
  std::string ref = suite->ref("test/tiny:tiny");
  CliResult pulled = run_cli({"pull", ref});
  ASSERT_EQ(pulled.exit_status, 0) << pulled.err;
  EXPECT_EQ(pulled.out, ref + " " + suite->digests["tiny"].get<std::string>() + "\n");
  EXPECT_EQ(pulled.err, "") << "not a terminal: no progress bar";

  // Each layer's compression: busybox and hello.txt gzip, zstd.txt zstd, plain.txt plain.
  CliResult ran = run_cli(
      {"run", "--image", ref, "--", "cat", "/hello.txt", "/etc/tiny/zstd.txt", "/plain.txt"});
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  EXPECT_EQ(ran.out, "hello from a pulled image\nfrom a zstd layer\nfrom a plain layer\n");
  CliResult image_cmd = run_cli({"run", "--image", ref});
  EXPECT_EQ(image_cmd.out, "hello from a pulled image\n") << image_cmd.err;

  CliResult listed = run_cli({"images", "--json"});
  json images = json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(images.is_array()) << listed.out;
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0]["reference"], ref);
  EXPECT_EQ(images[0]["layers"].size(), 3u);
}

// What `paddock mcp` does with a language's image: pulled on first use, with progress lines
// (its notifications), once; refused with what to do when pulling is off.
TEST_F(Registry, TheMcpServerPullsAnImageOnFirstUseWithProgress) {
  // With the settings paddock's command line resolves (PADDOCK_ROOT is the test's store).
  auto backend =
      cli::all_backends().create("native", cli::backend_settings(config::process_environment()));
  ASSERT_TRUE(backend) << backend.error().message;
  std::string ref = suite->ref("test/tiny:tiny");
  ASSERT_FALSE(*(*backend)->has_image(ref));
  app::ImageProvisioner never(**backend, false);
  auto refused = never.ensure(ref, {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("pulling is off"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("paddock pull " + ref), std::string::npos);

  app::ImageProvisioner images(**backend, true);
  std::vector<std::string> lines;
  auto progress = [&lines](const std::string& line) { lines.push_back(line); };
  ASSERT_TRUE(images.ensure(ref, progress));
  EXPECT_TRUE(*(*backend)->has_image(ref));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front(), "pulling " + ref);
  bool counted = false;
  for (const auto& line : lines) counted = counted || line.find("3/3 layers") != std::string::npos;
  EXPECT_TRUE(counted) << "no line counts the layers";
  lines.clear();
  ASSERT_TRUE(images.ensure(ref, progress));
  EXPECT_TRUE(lines.empty()) << "settled once per server";
}

TEST_F(Registry, RepeatedPullIsANoOpAndLayersAreShared) {
  std::string ref = suite->ref("test/tiny:tiny");
  CliResult first = run_cli({"pull", ref});
  ASSERT_EQ(first.exit_status, 0) << first.err;
  auto stored = directory_entries(store_ + "/blobs/sha256");
  std::map<std::string, std::pair<ino_t, std::int64_t>> before;
  for (const auto& name : stored) {
    struct stat info {};
    ASSERT_EQ(stat((store_ + "/blobs/sha256/" + name).c_str(), &info), 0);
    before[name] = {info.st_ino, info.st_mtim.tv_nsec + info.st_mtim.tv_sec * 1'000'000'000LL};
  }

  auto start = Clock::now();
  CliResult again = run_cli({"pull", ref});
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  EXPECT_EQ(again.exit_status, 0) << again.err;
  EXPECT_EQ(again.out, first.out);
  std::printf("repeated pull of a present image: %.1f ms (target < 50 ms)\n", ms);
  RecordProperty("repeated_pull_ms", std::to_string(ms));
  EXPECT_LT(ms, 1000) << "a no-op pull should cost one manifest request";

  // The index of `multi` names the same linux/amd64 manifest: nothing downloaded again.
  CliResult shared = run_cli({"pull", suite->ref("test/tiny:multi")});
  ASSERT_EQ(shared.exit_status, 0) << shared.err;
  EXPECT_EQ(shared.out,
            suite->ref("test/tiny:multi") + " " + suite->digests["tiny"].get<std::string>() + "\n");
  for (const auto& [name, identity] : before) {
    struct stat info {};
    ASSERT_EQ(stat((store_ + "/blobs/sha256/" + name).c_str(), &info), 0);
    EXPECT_EQ(info.st_ino, identity.first) << name << " was stored again";
    EXPECT_EQ(info.st_mtim.tv_nsec + info.st_mtim.tv_sec * 1'000'000'000LL, identity.second)
        << name << " was stored again";
  }
}

TEST_F(Registry, PlatformIsSelectedFromTheIndex) {
  std::string ref = suite->ref("test/tiny:multi");
  CliResult arm = run_cli({"pull", "--platform", "linux/arm64", ref});
  ASSERT_EQ(arm.exit_status, 0) << arm.err;
  EXPECT_EQ(arm.out, ref + " " + suite->digests["arm64"].get<std::string>() + "\n");
  // Only the files are arm64's; busybox is the host's, so it runs anyway.
  CliResult ran = run_cli({"run", "--image", ref, "--", "cat", "/arch.txt"});
  EXPECT_EQ(ran.out, "arm64\n") << ran.err;

  CliResult amd = run_cli({"pull", ref});
  ASSERT_EQ(amd.exit_status, 0) << amd.err;
  EXPECT_EQ(amd.out, ref + " " + suite->digests["tiny"].get<std::string>() + "\n");
  ran = run_cli({"run", "--image", ref, "--", "cat", "/arch.txt"});
  EXPECT_EQ(ran.out, "amd64\n") << ran.err;

  expect_one_line_error(run_cli({"pull", "--platform", "linux/s390x", ref}), "linux/s390x");
}

// A Docker manifest list (application/vnd.docker.distribution.manifest.list.v2+json) of Docker
// schema-2 manifests, as registries serve images pushed by docker.
TEST_F(Registry, DockerManifestListsAndSchema2ManifestsArePulled) {
  std::string ref = suite->ref("test/docker:multi");
  ToolResult raw = run_tool({"/usr/bin/skopeo", "inspect", "--authfile", suite->auth_file(),
                             "--raw", "--tls-verify=false", "docker://" + ref});
  ASSERT_NE(raw.output.find("application/vnd.docker.distribution.manifest.list.v2+json"),
            std::string::npos)
      << raw.output;
  for (const auto& [platform, arch] :
       {std::pair<std::string, std::string>{"linux/arm64", "arm64"}, {"linux/amd64", "amd64"}}) {
    CliResult pulled = run_cli({"pull", "--platform", platform, ref});
    ASSERT_EQ(pulled.exit_status, 0) << pulled.err;
    CliResult ran = run_cli({"run", "--image", ref, "--", "cat", "/arch.txt", "/hello.txt"});
    EXPECT_EQ(ran.out, arch + "\nhello from a pulled image\n") << ran.err;
  }
}

TEST_F(Registry, BlobNotMatchingItsDigestIsRejected) {
  std::string layer = suite->digests["corrupt_layer"].get<std::string>();
  std::string data = suite->dir + "/storage/docker/registry/v2/blobs/sha256/" + layer.substr(7, 2) +
                     "/" + layer.substr(7) + "/data";
  std::string content = read_file(data);
  ASSERT_FALSE(content.empty()) << data;
  // Same size, different bytes: only the digest can tell.
  for (std::size_t i = content.size() / 2; i < content.size(); ++i) content[i] ^= 0x5a;
  write_text(data, content);

  std::string ref = suite->ref("test/corrupt:latest");
  CliResult pulled = run_cli({"pull", ref});
  expect_one_line_error(pulled, layer);
  EXPECT_NE(pulled.err.find("does not match"), std::string::npos) << pulled.err;
  EXPECT_NE(pulled.err.find(ref), std::string::npos) << pulled.err;
  EXPECT_EQ(run_cli({"images", "--json"}).out, "[]\n");
  EXPECT_NE(access(blob_file(layer).c_str(), F_OK), 0) << "the bad blob was stored";
  EXPECT_TRUE(directory_entries(store_ + "/tmp").empty()) << "leftovers in tmp/";
  EXPECT_TRUE(directory_entries(store_ + "/layers/sha256").empty());
}

TEST_F(Registry, UnknownTagIsOneClearError) {
  std::string ref = suite->ref("test/tiny:no-such-tag");
  CliResult pulled = run_cli({"pull", ref});
  expect_one_line_error(pulled, ref);
  EXPECT_NE(pulled.err.find("not found"), std::string::npos) << pulled.err;
  expect_one_line_error(run_cli({"pull", suite->ref("test/no-such-repo:latest")}), "not found");
  expect_one_line_error(run_cli({"pull", "Not A Reference"}), "Not A Reference");
  EXPECT_EQ(run_cli({"images", "--json"}).out, "[]\n");
}

// The registry over HTTPS with a certificate of its own CA: refused until the CA is where Docker
// and Podman users put it (certs.d/HOST:PORT/ca.crt), then pulled over TLS (this registry speaks
// nothing else).
TEST_F(Registry, HttpsWithTheRegistrysOwnCa) {
  const std::string& dir = suite->dir;
  ToolResult key =
      run_tool({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                dir + "/tls.key", "-out", dir + "/tls.crt", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1", "-days", "2"});
  ASSERT_EQ(key.status, 0) << key.output;
  std::string tls = "  tls:\n    certificate: " + dir + "/tls.crt\n    key: " + dir + "/tls.key\n";
  int port = -1;
  std::string error;
  auto registry = start_registry(dir, "tls-registry", dir + "/storage", tls, port, error);
  ASSERT_TRUE(registry) << error;
  std::string host = "127.0.0.1:" + std::to_string(port);
  std::string ref = host + "/test/tiny:tiny";

  setenv("XDG_CONFIG_HOME", (dir + "/no-config").c_str(), 1);
  CliResult untrusted = run_cli({"pull", ref});
  expect_one_line_error(untrusted, "certs.d/" + host + "/ca.crt");

  std::string certs = dir + "/config/containers/certs.d/" + host;
  std::filesystem::create_directories(certs);
  std::filesystem::copy_file(dir + "/tls.crt", certs + "/ca.crt");
  setenv("XDG_CONFIG_HOME", (dir + "/config").c_str(), 1);
  CliResult pulled = run_cli({"pull", ref});
  unsetenv("XDG_CONFIG_HOME");
  ASSERT_EQ(pulled.exit_status, 0) << pulled.err;
  EXPECT_EQ(run_cli({"run", "--image", ref}).out, "hello from a pulled image\n");
}

// The registry in `auth.token` mode, on the same storage, with a token service that grants
// pulls to user:secret only.
TEST_F(Registry, TokenAuth) {
  const std::string& dir = suite->dir;
  ToolResult key = run_tool({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                             "-keyout", dir + "/token.key", "-out", dir + "/token.crt", "-subj",
                             "/CN=paddock test token issuer", "-days", "2"});
  ASSERT_EQ(key.status, 0) << key.output;
  std::string port_file = dir + "/token.port";
  Server token_server({kPython, source_dir() + "/tests/support/registry_token_server.py",
                       dir + "/token.key", dir + "/token.crt", "paddock-test-issuer",
                       "paddock-test-registry", "user:secret", port_file},
                      dir + "/token.log");
  auto deadline = Clock::now() + std::chrono::seconds(15);
  while (access(port_file.c_str(), F_OK) != 0 && token_server.running() &&
         Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(access(port_file.c_str(), F_OK), 0) << token_server.log();
  std::string token_port = read_file(port_file);

  std::string auth = "auth:\n  token:\n    realm: http://127.0.0.1:" + token_port +
                     "/token\n    service: paddock-test-registry\n    issuer: paddock-test-issuer\n"
                     "    rootcertbundle: " +
                     dir + "/token.crt\n";
  int port = -1;
  std::string error;
  auto registry = start_registry(dir, "token-registry", dir + "/storage", auth, port, error);
  ASSERT_TRUE(registry) << error;
  std::string ref = "127.0.0.1:" + std::to_string(port) + "/test/tiny:tiny";

  CliResult anonymous = run_cli({"pull", ref});
  expect_one_line_error(anonymous, ref);
  EXPECT_NE(anonymous.err.find("--creds"), std::string::npos) << anonymous.err;

  CliResult wrong = run_cli({"pull", "--creds", "user:wrong", ref});
  expect_one_line_error(wrong, "refused the credentials for user");
  EXPECT_EQ(run_cli({"images", "--json"}).out, "[]\n");

  CliResult pulled = run_cli({"pull", "--creds", "user:secret", ref});
  ASSERT_EQ(pulled.exit_status, 0) << pulled.err << registry->log() << token_server.log();
  EXPECT_EQ(pulled.out, ref + " " + suite->digests["tiny"].get<std::string>() + "\n");
  CliResult ran = run_cli({"run", "--image", ref, "--", "cat", "/hello.txt"});
  EXPECT_EQ(ran.out, "hello from a pulled image\n") << ran.err;

  // The same credentials kept out of the command line, which every user sees in ps: from a
  // file, and from the environment.
  std::string creds_file = dir + "/creds";
  write_text(creds_file, "user:secret\n");
  ASSERT_TRUE(rootfs::remove_tree(store_).ok());
  CliResult from_file = run_cli({"pull", "--creds-file", creds_file, ref});
  EXPECT_EQ(from_file.exit_status, 0) << from_file.err;
  EXPECT_EQ(from_file.out, pulled.out);
  CliResult no_file = run_cli({"pull", "--creds-file", dir + "/missing", ref});
  expect_one_line_error(no_file, dir + "/missing");
  ASSERT_TRUE(rootfs::remove_tree(store_).ok());
  setenv("PADDOCK_REGISTRY_CREDS", "user:secret", 1);
  CliResult from_env = run_cli({"pull", ref});
  unsetenv("PADDOCK_REGISTRY_CREDS");
  EXPECT_EQ(from_env.exit_status, 0) << from_env.err;
  EXPECT_EQ(from_env.out, pulled.out);

  // The same credentials from a Docker config file ("user:secret" in base64).
  ASSERT_TRUE(rootfs::remove_tree(store_).ok());
  std::string docker_config = dir + "/docker-config";
  mkdir(docker_config.c_str(), 0700);
  write_text(docker_config + "/config.json",
             json{{"auths",
                   {{"http://127.0.0.1:" + std::to_string(port), {{"auth", "dXNlcjpzZWNyZXQ="}}}}}}
                 .dump());
  setenv("DOCKER_CONFIG", docker_config.c_str(), 1);
  CliResult from_config = run_cli({"pull", ref});
  EXPECT_EQ(from_config.exit_status, 0) << from_config.err;
  EXPECT_EQ(from_config.out, pulled.out);

  pid_t registry_pid = registry->pid(), token_pid = token_server.pid();
  registry->stop();
  token_server.stop();
  EXPECT_NE(kill(registry_pid, 0), 0);
  EXPECT_NE(kill(token_pid, 0), 0);
}

// Python from an mmdebstrap image (the layout scripts/test builds with
// scripts/build-language-images into PADDOCK_TEST_PYTHON_LAYOUT), pushed to the registry with
// skopeo and pulled back: language code and a library from the pulled image.
TEST_F(Registry, PythonFromAPulledMmdebstrapImage) {
  std::string error;
  std::string layout = python_image_layout(error);
  ASSERT_FALSE(layout.empty()) << error;
  std::string ref = suite->ref("test/python:bookworm");
  ToolResult pushed = run_tool({"/usr/bin/skopeo", "--insecure-policy", "copy", "--authfile",
                                suite->auth_file(), "--preserve-digests", "--dest-tls-verify=false",
                                std::string("oci:") + layout, "docker://" + ref});
  ASSERT_EQ(pushed.status, 0) << pushed.output;
  CliResult pulled = run_cli({"pull", ref});
  ASSERT_EQ(pulled.exit_status, 0) << pulled.err;
  CliResult ran = run_cli({"run", "--image", ref, "--lang", "python", "--code",
                           "import numpy, pandas\nprint(int(numpy.arange(5).sum()))"});
  EXPECT_EQ(ran.out, "10\n") << ran.err;
}

}  // namespace
}  // namespace paddock::testing::registry_test
