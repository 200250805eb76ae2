// The docker and podman backends against real engines this suite starts (scripts/engines): dockerd
// (--iptables=false --bridge=none) and `podman system service` (runc, explicit ulimits), each
// with its own state under a temporary directory, and the python image scripts/test builds
// with mmdebstrap (PADDOCK_TEST_PYTHON_LAYOUT) copied into each with skopeo. Every property is
// tried from inside a container and seen refused. Pulls come from docker-registry on 127.0.0.1,
// which both engines are told to reach over plain HTTP. Root only: dockerd needs root, and so does
// this Podman on cgroup v1 (scripts/test runs this binary as root).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/backend_settings.h"
#include "language/spec_builder.h"
#include "runtime/engine/engine_backend.h"
#include "support/harness.h"
#include "support/helper_process.h"
#include "support/python_image.h"
#include "support/registry_server.h"

namespace paddock::testing::engine_test {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The engines' settings as paddock's command line resolves them, from this process's
// environment (where the suite points DOCKER_HOST and CONTAINER_HOST at its engines).
engine::EngineSettings engine_settings() {
  return cli::backend_settings(config::process_environment()).engine;
}
constexpr const char* kImage = "localhost/paddock/python:bookworm";

struct Engines {
  std::string dir;
  std::string error;
  // A registry both engines may pull from over plain HTTP, with tests/support/oci_test_image.py's
  // images pushed as Docker manifests.
  int registry_port = -1;
  std::unique_ptr<Server> registry;
  std::string registry_error;
};
Engines* engines = nullptr;

// scripts/engines starts both, with the python image in each, and says where they listen.
void start_engines() {
  engines = new Engines;
  std::string layout = python_image_layout(engines->error);
  if (layout.empty()) return;
  char pattern[] = "/tmp/paddock-engines-XXXXXX";
  engines->dir = mkdtemp(pattern);
  engines->registry_port = free_port();
  setenv("PADDOCK_ENGINES_INSECURE_REGISTRY",
         ("127.0.0.1:" + std::to_string(engines->registry_port)).c_str(), 1);
  ToolResult started =
      run_tool({source_dir() + "/scripts/engines", "start", engines->dir, layout + "=" + kImage});
  if (started.status != 0) {
    engines->error = "scripts/engines start: " + started.output;
    return;
  }
  std::istringstream lines(started.output);
  for (std::string line; std::getline(lines, line);) {
    for (const char* name : {"DOCKER_HOST", "CONTAINER_HOST"}) {
      if (line.starts_with(std::string(name) + "=")) {
        setenv(name, line.substr(std::strlen(name) + 1).c_str(), 1);
      }
    }
  }
}

// The registry for the pull tests, once: started on the port the engines were told about.
void start_registry_once() {
  if (engines->registry || !engines->registry_error.empty()) return;
  std::string& error = engines->registry_error;
  ToolResult layout =
      run_tool({"/usr/bin/python3", source_dir() + "/tests/support/oci_test_image.py",
                engines->dir + "/layout"});
  if (layout.status != 0) {
    error = "building the test image: " + layout.output;
    return;
  }
  engines->registry = start_registry(engines->dir, "registry", engines->dir + "/registry", "",
                                     engines->registry_port, error);
  if (!engines->registry) return;
  ToolResult pushed =
      run_tool({"/usr/bin/skopeo", "--insecure-policy", "copy", "--authfile",
                engines->dir + "/auth.json", "--all", "--format", "v2s2", "--dest-tls-verify=false",
                "oci:" + engines->dir + "/layout:gzipped",
                "docker://127.0.0.1:" + std::to_string(engines->registry_port) + "/test/tiny:1"});
  if (pushed.status != 0) error = "skopeo copy: " + pushed.output;
}

class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    if (engines == nullptr) start_engines();
  }
  void SetUp() override { ASSERT_EQ(engines->error, "") << "the engines cannot run"; }

  std::string socket() const { return engines->dir + "/" + GetParam() + ".sock"; }
  // A session of this engine on the python image.
  void open_python_session(std::unique_ptr<runtime::Session>& session) {
    auto backend = engine::EngineBackend::connect(GetParam(), engine_settings());
    ASSERT_TRUE(backend) << backend.error().message;
    auto built =
        language::build_command_spec(runtime::SandboxShape{}, runtime::RunPlan{},
                                     language::ImageSource{backend->get(), kImage, {}, {}});
    ASSERT_TRUE(built) << built.error().message;
    auto opened = (*backend)->open_session(built->shape, built->plan);
    ASSERT_TRUE(opened) << opened.error().message;
    session = std::move(*opened);
  }
  CliResult paddock(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--backend", GetParam(), "--image", kImage});
    return run_cli(args);
  }
  // The engine's answer to one Engine API request, as JSON (discarded when it is not).
  json engine_api(const std::string& method, const std::string& path, const json& body = {}) {
    std::vector<std::string> curl = {"/usr/bin/curl",
                                     "-s",
                                     "--unix-socket",
                                     socket(),
                                     "-X",
                                     method,
                                     "-H",
                                     "Content-Type: application/json"};
    if (!body.is_null()) curl.insert(curl.end(), {"-d", body.dump()});
    curl.push_back("http://localhost/v1.41" + path);
    return json::parse(run_tool(curl).output, nullptr, false);
  }
  // Ids of paddock's containers the engine has, running or not.
  std::vector<std::string> sandbox_containers() {
    json containers = engine_api(
        "GET",
        "/containers/json?all=true&filters=%7B%22label%22%3A%5B%22io.paddock.sandbox%22%5D%7D");
    std::vector<std::string> ids;
    if (containers.is_array()) {
      for (const auto& container : containers) ids.push_back(container.value("Id", ""));
    }
    return ids;
  }
};

TEST_P(EngineTest, RunsHardenedAndSaysWhichBackendRanIt) {
  CliResult run =
      paddock({"run", "--json", "--", "sh", "-c",
               "id -u; grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status; "
               "grep -c : /proc/net/dev; touch /usr/x 2>/dev/null || echo root read-only; "
               "echo ok > /work/f && cat /work/f"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  json result = json::parse(run.out);
  EXPECT_EQ(result["backend"], GetParam());
  // Not root; no capabilities; no new privileges; a seccomp filter; only the loopback
  // interface; a read-only root and a writable work directory.
  EXPECT_EQ(
      result["stdout"],
      "1000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n1\nroot read-only\nok\n");
}

// paddock's own profile is in force, not the engine's default: io_uring_setup, which Docker's
// 20.10 default allows, fails with EPERM (paddock's defaultErrnoRet).
TEST_P(EngineTest, PaddocksSeccompProfileIsEnforced) {
  CliResult run = paddock({"run", "--", "python3", "-c",
                           "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nparams = "
                           "ctypes.create_string_buffer(120)\nprint(libc.syscall(425, 1, params), "
                           "ctypes.get_errno())"});
  EXPECT_EQ(run.out, "-1 1\n") << run.err;
}

TEST_P(EngineTest, ATimeoutKillsTheProgramAndTheContainerGoes) {
  auto started = Clock::now();
  CliResult run = paddock({"run", "--timeout", "1", "--", "sh", "-c", "sleep 30 & sleep 30"});
  EXPECT_EQ(run.exit_status, 124) << run.err;
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(15));
  EXPECT_TRUE(sandbox_containers().empty());
}

TEST_P(EngineTest, PlotsComeBackAsArtifacts) {
  CliResult run = paddock({"run", "--json", "--lang", "python", "--code",
                           "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find(R"("mime_type":"image/png")"), std::string::npos) << run.out;
}

// A paddock killed mid-run leaves its container; the next paddock to use the engine removes
// it (its owner's pid is gone).
TEST_P(EngineTest, OrphansOfAKilledPaddockAreRemoved) {
  Server victim(
      {paddock_binary(), "run", "--backend", GetParam(), "--image", kImage, "--", "sleep", "60"},
      engines->dir + "/victim.log");
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (sandbox_containers().empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(sandbox_containers().size(), 1u) << victim.log();
  kill(victim.pid(), SIGKILL);
  victim.stop();
  EXPECT_EQ(sandbox_containers().size(), 1u);
  CliResult next = paddock({"run", "--", "true"});
  EXPECT_EQ(next.exit_status, 0) << next.err;
  EXPECT_TRUE(sandbox_containers().empty());
}

// An allowlist this backend cannot enforce is refused before any container starts, never
// dropped in favour of the engine's own network.
TEST_P(EngineTest, AnEgressAllowlistIsRefusedNotDropped) {
  CliResult run = paddock({"run", "--allow-host", "registry.npmjs.org", "--", "true"});
  EXPECT_EQ(run.exit_status, 125);
  EXPECT_NE(run.err.find("backend cannot enforce an egress allowlist yet: leave the allowlist "
                         "out, or use the native backend (set by --allow-host)"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(sandbox_containers().empty());
  // So is an installer limited to its package index (every built-in policy's): it must not get
  // the engine's whole network instead.
  CliResult install = paddock({"run", "--lang", "python", "--lib", "anything", "--code", "1"});
  EXPECT_EQ(install.exit_status, 125);
  EXPECT_NE(install.err.find("backend cannot limit a library installer to its package index"),
            std::string::npos)
      << install.err;
  EXPECT_TRUE(sandbox_containers().empty());
}

// A run whose installer gets a network and whose program gets none (a policy's "network":
// {"run": "none", "install": "user"}, asked for by name): the installer's step sees an interface
// besides lo, the program's sees lo alone, and the result does not say that network went
// unenforced. dockerd here has no "bridge" network (--bridge=none), so the test makes an internal
// one of its own and names it in PADDOCK_ENGINE_NETWORK. The installer only notes the interfaces it
// sees.
TEST_P(EngineTest, TheProgramRunsWithoutTheInstallersNetwork) {
  std::string network = "paddock-test-install-" + std::to_string(getpid());
  json created = engine_api("POST", "/networks/create", {{"Name", network}, {"Internal", true}});
  ASSERT_TRUE(created.contains("Id")) << created.dump();
  std::string policies = engines->dir + "/install-network-policies";
  std::filesystem::create_directories(policies);
  {
    std::ofstream policy(policies + "/python.json");
    policy << json{{"name", "python"},
                   {"network", {{"install", "user"}}},
                   {"install",
                    {"sh", "-c", "cat /proc/net/dev > /work/installer-net.txt", "sh",
                     "{libraries}"}}}
                  .dump();
  }
  setenv("PADDOCK_ENGINE_NETWORK", network.c_str(), 1);
  CliResult run = paddock(
      {"run", "--json", "--policy-dir", policies, "--lang", "python", "--lib", "anything", "--code",
       "def names(path):\n"
       "    return sorted(l.split(':')[0].strip() for l in open(path) if ':' in l)\n"
       "print(names('/work/installer-net.txt'), names('/proc/net/dev'))"});
  unsetenv("PADDOCK_ENGINE_NETWORK");
  engine_api("DELETE", "/networks/" + network);
  ASSERT_EQ(run.exit_status, 0) << run.out << run.err;
  json result = json::parse(run.out);
  EXPECT_EQ(result["stdout"], "['eth0', 'lo'] ['lo']\n");
  EXPECT_EQ(result["isolation"]["network"], "none");
  EXPECT_EQ(result["isolation"]["not_enforced"].dump().find("network"), std::string::npos)
      << result["isolation"].dump();
  EXPECT_TRUE(sandbox_containers().empty());
}

TEST_P(EngineTest, AnUnreachableEngineIsOneClearLine) {
  const char* variable = GetParam() == "docker" ? "DOCKER_HOST" : "CONTAINER_HOST";
  std::string saved = std::getenv(variable);
  setenv(variable, "unix:///nonexistent/engine.sock", 1);
  CliResult run = paddock({"run", "--", "true"});
  setenv(variable, saved.c_str(), 1);
  EXPECT_EQ(run.exit_status, 125);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("/nonexistent/engine.sock"), std::string::npos) << run.err;
}

// A session through the Backend interface, as the MCP server uses it: files stay, processes
// do not, and closing removes the container.
TEST_P(EngineTest, ASessionKeepsFilesButNoProcesses) {
  std::unique_ptr<runtime::Session> session;
  ASSERT_NO_FATAL_FAILURE(open_python_session(session));
  std::string big(300000, 'b');  // more than one write exec
  ASSERT_TRUE(session->write_file("dir/big.txt", big));
  RecordingObserver observer;
  runtime::ExecRequest start;
  start.argv = {"sh", "-c", "sleep 300 & echo started; wc -c < dir/big.txt"};
  auto started = session->exec(start, observer);
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_EQ(started->stdout_data.data, "started\n300000\n");
  runtime::ExecRequest look;
  look.argv = {"sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"};
  auto looked = session->exec(look, observer);
  ASSERT_TRUE(looked);
  EXPECT_EQ(looked->stdout_data.data.find("sleep 300"), std::string::npos)
      << looked->stdout_data.data;
  auto read = session->read_file("dir/big.txt", 10);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->data, "bbbbbbbbbb");
  EXPECT_EQ(read->size, 300000u);
  auto listed = session->list_files("dir", 10);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "big.txt");
  EXPECT_EQ((*listed)[0].type, "file");
  EXPECT_FALSE(session->read_file("missing.txt", 10));
  EXPECT_EQ(sandbox_containers().size(), 1u);
  session->close();
  EXPECT_TRUE(sandbox_containers().empty());
}

// Code plants a directory "ab" and a symlink "[a]b" to /tmp: a write to "[a]b/x" must not be
// checked against "ab" (a glob the write script once expanded) and then go through the link.
TEST_P(EngineTest, AWriteIsNotCheckedAgainstWhatItsNameGlobs) {
  std::unique_ptr<runtime::Session> session;
  ASSERT_NO_FATAL_FAILURE(open_python_session(session));
  RecordingObserver observer;
  runtime::ExecRequest plant;
  plant.argv = {"sh", "-c", "mkdir ab in && ln -s /tmp '[a]b' && ln -s /tmp 'in/[a]b'"};
  auto planted = session->exec(plant, observer);
  ASSERT_TRUE(planted) << planted.error().message;
  ASSERT_EQ(planted->exit_code, 0) << planted->stderr_data.data;
  for (const char* path : {"[a]b/x", "in/[a]b/y"}) {
    auto written = session->write_file(path, "planted");
    ASSERT_FALSE(written) << path << " was written";
    EXPECT_EQ(written.error().code, ELOOP) << written.error().message;
  }
  runtime::ExecRequest look;
  look.argv = {"sh", "-c", "ls /tmp"};
  auto looked = session->exec(look, observer);
  ASSERT_TRUE(looked);
  EXPECT_EQ(looked->stdout_data.data, "") << "written outside the work directory";
}

// A command printing far past the output cap: the observer hears every byte, as the native
// backend's does (the MCP progress observer caps what it sends itself), while the result keeps
// only the stream's start and end within the cap.
TEST_P(EngineTest, OutputPastTheCapReachesTheObserverWholeAndTheResultCut) {
  std::unique_ptr<runtime::Session> session;
  ASSERT_NO_FATAL_FAILURE(open_python_session(session));
  struct Counting : runtime::RunObserver {
    void on_output(runtime::StreamId /*stream*/, std::string_view chunk) override {
      bytes += chunk.size();
    }
    std::size_t bytes = 0;
  } observer;
  runtime::ExecRequest flood;
  flood.argv = {"sh", "-c", "head -c 8000000 /dev/zero; echo; echo the-end"};
  flood.output_bytes = 64 * 1024;
  auto flooded = session->exec(flood, observer);
  ASSERT_TRUE(flooded) << flooded.error().message;
  EXPECT_EQ(flooded->stdout_data.total_bytes, 8000000u + 9);
  EXPECT_TRUE(flooded->stdout_data.truncated);
  EXPECT_EQ(flooded->stdout_data.data.size(), 64u * 1024);
  EXPECT_NE(flooded->stdout_data.data.find("the-end"), std::string::npos) << "the end was lost";
  EXPECT_EQ(observer.bytes, 8000000u + 9);
}

// get_session's usage beside a running command: it answers without waiting for the command,
// counts the command's processes but not paddock's own (the keeper, the counting helper), and
// measures the work directory's tmpfs.
TEST_P(EngineTest, ASessionsUsageAnswersWhileACommandRuns) {
  std::unique_ptr<runtime::Session> session;
  ASSERT_NO_FATAL_FAILURE(open_python_session(session));
  auto fresh = session->usage();
  ASSERT_TRUE(fresh) << fresh.error().message;
  EXPECT_EQ(fresh->processes, 0u);
  RecordingObserver observer;
  runtime::ExecRequest request;
  request.argv = {"sh", "-c", "head -c 3000000 /dev/zero > big; sleep 5 & sleep 5 & wait"};
  std::thread command([&] {
    auto result = session->exec(request, observer);
    EXPECT_TRUE(result) << result.error().message;
  });
  std::uint32_t most = 0;
  auto slowest = Clock::duration::zero();
  auto deadline = Clock::now() + std::chrono::seconds(4);
  while (most < 3 && Clock::now() < deadline) {
    auto asked = Clock::now();
    auto usage = session->usage();
    slowest = std::max(slowest, Clock::now() - asked);
    ASSERT_TRUE(usage) << usage.error().message;
    most = std::max(most, usage->processes);
  }
  command.join();
  EXPECT_GE(most, 3u);
  EXPECT_LT(slowest, std::chrono::seconds(3));
  auto after = session->usage();
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->processes, 0u);
  EXPECT_GE(after->disk_bytes, fresh->disk_bytes + 2'900'000);
  session->close();
  EXPECT_FALSE(session->usage());
}

// What a killed command leaves behind is reaped: no zombie keeps a slot of the pids limit.
TEST_P(EngineTest, WhatAKilledCommandLeavesBehindIsReaped) {
  std::unique_ptr<runtime::Session> session;
  ASSERT_NO_FATAL_FAILURE(open_python_session(session));
  RecordingObserver observer;
  runtime::ExecRequest request;
  request.argv = {"sh", "-c", "for i in 1 2 3 4 5 6; do sh -c 'sleep 60 & sleep 60' & done; wait"};
  request.wall_seconds = 1;
  for (int round = 0; round < 3; ++round) {
    auto result = session->exec(request, observer);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->outcome, runtime::Outcome::kTimedOut);
  }
  auto usage = session->usage();
  for (int i = 0; i < 20 && usage && usage->processes != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    usage = session->usage();
  }
  ASSERT_TRUE(usage) << usage.error().message;
  EXPECT_EQ(usage->processes, 0u) << "zombies left by killed commands";
  session->close();
}

// A missing image is pulled by the engine (POST /images/create), with progress, and is there
// afterwards; one the registry lacks fails with the engine's reason, naming it.
TEST_P(EngineTest, PullsAMissingImageWithProgress) {
  start_registry_once();
  ASSERT_EQ(engines->registry_error, "") << "the registry cannot run";
  auto backend = engine::EngineBackend::connect(GetParam(), engine_settings());
  ASSERT_TRUE(backend) << backend.error().message;
  std::string image = "127.0.0.1:" + std::to_string(engines->registry_port) + "/test/tiny:1";
  auto before = (*backend)->has_image(image);
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_FALSE(*before);
  std::vector<std::string> progress;
  auto pulled =
      (*backend)->pull_image(image, [&](const std::string& line) { progress.push_back(line); });
  ASSERT_TRUE(pulled) << pulled.error().message;
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress[0].rfind("pulling " + image + ": ", 0), 0u) << progress[0];
  auto after = (*backend)->has_image(image);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_TRUE(*after);
  std::string absent = "127.0.0.1:" + std::to_string(engines->registry_port) + "/test/absent:1";
  auto refused = (*backend)->pull_image(absent, nullptr);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find(absent), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find(GetParam()), std::string::npos) << refused.error().message;
}

// A transport whose sandbox cannot leave its network: it records the commands it is given.
class StuckOnTheNetwork final : public container::ExecTransport {
 public:
  struct Log {
    std::vector<std::vector<std::string>> commands;
    bool removed = false;
  };
  explicit StuckOnTheNetwork(std::shared_ptr<Log> log) : log_(std::move(log)) {}
  core::Result<container::ExecOutcome> run(const container::ExecCommand& command) override {
    log_->commands.push_back(command.argv);
    container::ExecOutcome outcome;
    outcome.exit_code = 0;
    return outcome;
  }
  core::Status leave_networks() override {
    return core::Error{EIO,
                       "docker still has the sandbox on network bridge after disconnecting it"};
  }
  void remove() override { log_->removed = true; }

 private:
  std::shared_ptr<Log> log_;
};

// No engine needed: when the installer's network cannot be taken away, the run fails with one
// line, the program never starts and the sandbox goes.
TEST(ContainerRun, TheProgramDoesNotStartWhileTheInstallersNetworkStays) {
  auto log = std::make_shared<StuckOnTheNetwork::Log>();
  TestSpec spec;
  spec.prelude = {{"installer"}};
  spec.networked_prelude = 1;
  spec.argv = {"program"};
  container::ContainerSession session("docker", shape_of(spec),
                                      std::make_unique<StuckOnTheNetwork>(log),
                                      runtime::IsolationReport{});
  RecordingObserver observer;
  auto result = container::run_to_the_end(session, shape_of(spec), plan_of(spec), observer);
  ASSERT_FALSE(result) << "the program ran";
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("taking the installer's network away"), std::string::npos)
      << result.error().message;
  ASSERT_FALSE(log->commands.empty());
  EXPECT_EQ(log->commands.front(), std::vector<std::string>{"installer"});
  for (const auto& command : log->commands) EXPECT_NE(command, std::vector<std::string>{"program"});
  EXPECT_TRUE(log->removed);
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineTest, ::testing::Values("docker", "podman"),
                         [](const auto& engine) { return engine.param; });

// The engines go with the suite: stopped, their helpers killed and their state removed.
class StopEngines : public ::testing::Environment {
 public:
  void TearDown() override {
    if (engines == nullptr || engines->dir.empty()) return;
    engines->registry.reset();
    ToolResult stopped = run_tool({source_dir() + "/scripts/engines", "stop", engines->dir});
    EXPECT_EQ(stopped.status, 0) << stopped.output;
    EXPECT_FALSE(std::filesystem::exists(engines->dir)) << "the engines' state was left behind";
    EXPECT_EQ(run_tool({"/usr/bin/pgrep", "-f", engines->dir}).status, 1)
        << "processes of the engines were left behind";
  }
};
const auto* const stop_engines = ::testing::AddGlobalTestEnvironment(new StopEngines);

}  // namespace
}  // namespace paddock::testing::engine_test
