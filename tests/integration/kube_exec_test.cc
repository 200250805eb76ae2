// The Kubernetes backend's exec path against the test API server (tests/support/
// kube_api_server.py): TLS with the server's own CA, a bearer token, the WebSocket upgrade and
// the v5 channel protocol, stdin closed, and the exit code from the status channel.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/backend_settings.h"
#include "core/base64.h"
#include "runtime/container/container_config.h"
#include "runtime/container/sandbox_owner.h"
#include "runtime/kube/exec_channels.h"
#include "runtime/kube/kube_backend.h"
#include "runtime/kube/kube_exec.h"
#include "runtime/kube/websocket_client.h"
#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::kube_exec_test {
namespace {

const std::string kPods = "/api/v1/namespaces/default/pods";
const std::string kSecrets = "/api/v1/namespaces/default/secrets";
const std::string kPolicies = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies";

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// A sandbox on an image the test server "pulls" at once, running `argv`.
TestSpec sandbox_spec(std::vector<std::string> argv = {"true"}) {
  TestSpec spec;
  spec.image = "registry.example/python:1";
  spec.argv = std::move(argv);
  return spec;
}

// The names of the `pods` whose labels hold every one of `match_labels`.
std::vector<std::string> selected_pods(const nlohmann::json& match_labels,
                                       const nlohmann::json& pods) {
  std::vector<std::string> names;
  for (const auto& pod : pods) {
    const auto& labels = pod["metadata"].value("labels", nlohmann::json::object());
    bool all = true;
    for (const auto& [key, value] : match_labels.items()) {
      all = all && labels.contains(key) && labels[key] == value;
    }
    if (all) names.push_back(pod["metadata"]["name"]);
  }
  return names;
}

class KubeExec : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/paddock-kube-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    ToolResult key =
        run_tool({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                  dir_ + "/api.key", "-out", dir_ + "/api.crt", "-subj", "/CN=127.0.0.1", "-addext",
                  "subjectAltName=IP:127.0.0.1", "-days", "2"});
    ASSERT_EQ(key.status, 0) << key.output;
    server_ = std::make_unique<Server>(
        std::vector<std::string>{"/usr/bin/python3",
                                 source_dir() + "/tests/support/kube_api_server.py",
                                 dir_ + "/api.crt", dir_ + "/api.key", "secret", dir_ + "/port"},
        dir_ + "/api.log");
    for (int i = 0; i < 300 && access((dir_ + "/port").c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(access((dir_ + "/port").c_str(), F_OK), 0) << server_->log();
    access_.server = "https://127.0.0.1:" + read_file(dir_ + "/port");
    access_.ca_pem = read_file(dir_ + "/api.crt");
    access_.token = "secret";
    access_.namespace_name = "default";
    access_.source = "the test API server";
  }
  void TearDown() override {
    server_.reset();
    run_tool({"/bin/rm", "-rf", dir_});
  }
  ToolResult api(const std::string& method, const std::string& path, const std::string& body = "") {
    std::vector<std::string> args = {"/usr/bin/curl",
                                     "-s",
                                     "--cacert",
                                     dir_ + "/api.crt",
                                     "-H",
                                     "Authorization: Bearer secret",
                                     "-X",
                                     method,
                                     access_.server + path};
    if (!body.empty()) {
      args.insert(args.end(), {"-H", "Content-Type: application/json", "-d", body});
    }
    return run_tool(args);
  }

  // The items the API lists at `path`.
  nlohmann::json items(const std::string& path) {
    auto listed = nlohmann::json::parse(api("GET", path).output, nullptr, false);
    return listed.is_object() ? listed.value("items", nlohmann::json::array())
                              : nlohmann::json::array();
  }

  // The kubernetes backend, connected to the test API server through a kubeconfig.
  core::Result<std::unique_ptr<runtime::Backend>> connect_backend(
      const std::optional<std::string>& namespace_name = std::nullopt,
      kube::PodOptions options = {}) {
    std::string kubeconfig = dir_ + "/kubeconfig";
    std::ofstream(kubeconfig) << nlohmann::json{
        {"apiVersion", "v1"},
        {"kind", "Config"},
        {"current-context", "test"},
        {"clusters",
         {{{"name", "test"},
           {"cluster",
            {{"server", access_.server},
             {"certificate-authority-data", core::base64_encode(access_.ca_pem)}}}}}},
        {"contexts",
         {{{"name", "test"},
           {"context", {{"cluster", "test"}, {"user", "test"}, {"namespace", "default"}}}}}},
        {"users", {{{"name", "test"}, {"user", {{"token", access_.token}}}}}}};
    // As paddock's command line resolves them: from the environment, then what was chosen.
    setenv("KUBECONFIG", kubeconfig.c_str(), 1);
    kube::KubeSettings settings = cli::backend_settings(config::process_environment()).kube;
    unsetenv("KUBECONFIG");
    if (namespace_name) settings.namespace_name = namespace_name;
    if (options.seccomp_profile) {
      settings.pods.seccomp_profile = options.seccomp_profile;
      settings.seccomp_profile_source = "--kube-seccomp-profile";
    }
    settings.pods.start_seconds = options.start_seconds;
    settings.pods.pull_images = options.pull_images;
    return kube::KubeBackend::connect(settings);
  }

  std::string dir_;
  std::unique_ptr<Server> server_;
  kube::ClusterAccess access_;
};

TEST_F(KubeExec, ACommandRunsWithItsStreamsAndExitCode) {
  ASSERT_EQ(api("POST", "/api/v1/namespaces/default/pods",
                R"({"metadata":{"name":"p1"},"spec":{"containers":[{"name":"sandbox",)"
                R"("image":"img","command":["sleep","infinity"]}]}})")
                .status,
            0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Pending, then Running
  std::string path =
      "/api/v1/namespaces/default/pods/p1/exec?command=sh&command=-c&command="
      "echo%20out%3B%20echo%20err%20%3E%262%3B%20cat%3B%20exit%203&stdin=true&stdout=true"
      "&stderr=true";
  auto connection = kube::WebSocketConnection::open(access_, path, kube::kChannelProtocols);
  ASSERT_TRUE(connection) << connection.error().message;
  EXPECT_EQ((*connection)->protocol(), "v5.channel.k8s.io");
  ASSERT_TRUE((*connection)->send(kube::Opcode::kBinary, kube::stdin_message("piped\n")));
  ASSERT_TRUE((*connection)->send(kube::Opcode::kBinary, kube::close_stdin_message()));
  std::string out, err;
  std::optional<int> exit_code;
  for (int i = 0; i < 100 && !exit_code; ++i) {
    auto frame = (*connection)->receive(1000);
    ASSERT_TRUE(frame) << frame.error().message;
    if (!*frame || (*frame)->opcode != kube::Opcode::kBinary) continue;
    auto message = kube::split_channel((*frame)->payload);
    if (!message) continue;
    if (message->channel == kube::Channel::kStdout) out += message->data;
    if (message->channel == kube::Channel::kStderr) err += message->data;
    if (message->channel == kube::Channel::kError) {
      auto code = kube::exit_code_of_status(message->data);
      ASSERT_TRUE(code) << code.error().message;
      exit_code = *code;
    }
  }
  EXPECT_EQ(out, "out\npiped\n");
  EXPECT_EQ(err, "err\n");
  EXPECT_EQ(exit_code, 3);
}

TEST_F(KubeExec, AWrongTokenOrAMissingPodIsRefusedWithTheApisMessage) {
  kube::ClusterAccess wrong = access_;
  wrong.token = "nope";
  auto refused = kube::WebSocketConnection::open(
      wrong, "/api/v1/namespaces/default/pods/p1/exec?command=true", kube::kChannelProtocols);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("401"), std::string::npos) << refused.error().message;
  auto missing = kube::WebSocketConnection::open(
      access_, "/api/v1/namespaces/default/pods/none/exec?command=true", kube::kChannelProtocols);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no such pod"), std::string::npos)
      << missing.error().message;
  kube::ClusterAccess untrusted = access_;
  untrusted.ca_pem.clear();
  EXPECT_FALSE(kube::WebSocketConnection::open(
      untrusted, "/api/v1/namespaces/default/pods/p1/exec?command=true", kube::kChannelProtocols));
}

// A pod that is not running within its start timeout (its image still pulling) is one error
// that says what to raise, and neither the pod nor its secret is left; a longer timeout lets
// the same pod start.
TEST_F(KubeExec, APodNotRunningInTimeIsAClearErrorAndLeavesNothing) {
  TestSpec spec;
  spec.image = "registry.example/slow-pull/python:1";
  spec.env = {"K=v"};
  auto late = kube::KubeExec::create(access_, shape_of(spec), plan_of(spec), {.start_seconds = 1});
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().message.find("was not running after 1 s (still ContainerCreating); a "
                                      "slow image pull needs a longer pod start timeout"),
            std::string::npos)
      << late.error().message;
  // Named for the front-ends, which add its flag and variable (config/setting_words.h).
  EXPECT_EQ(late.error().setting, "pod_start_timeout");
  for (const char* kind : {"pods", "secrets"}) {
    auto listed = nlohmann::json::parse(
        api("GET", std::string("/api/v1/namespaces/default/") + kind).output, nullptr, false);
    EXPECT_EQ(listed.value("items", nlohmann::json::array()).size(), 0u) << kind << " left";
  }
  auto patient =
      kube::KubeExec::create(access_, shape_of(spec), plan_of(spec), {.start_seconds = 30});
  ASSERT_TRUE(patient) << patient.error().message;
}

// What a paddock that died left in the cluster (a pod, the secret with its variables) is deleted
// when the next one connects; a live paddock's objects are left alone.
TEST_F(KubeExec, ConnectingDeletesWhatADeadPaddockLeft) {
  // Another paddock of this machine, boot and PID namespace, as its labels name it.
  auto labels = [&](pid_t pid) {
    container::SandboxOwner owner = container::this_paddock();
    owner.instance = "another-" + std::to_string(pid);
    owner.pid = std::to_string(pid);
    owner.started = container::process_start_time(pid).value_or("0");
    nlohmann::json json = container::owner_labels(owner);
    json["io.paddock.sandbox"] = "1";
    return json.dump();
  };
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  for (const auto& [name, pid] :
       {std::pair{std::string("dead"), dead}, std::pair{std::string("alive"), getpid()}}) {
    ASSERT_EQ(api("POST", "/api/v1/namespaces/default/secrets",
                  R"({"metadata":{"name":")" + name + R"(","labels":)" + labels(pid) +
                      R"(},"stringData":{"K":"v"}})")
                  .status,
              0);
    ASSERT_EQ(api("POST", "/api/v1/namespaces/default/pods",
                  R"({"metadata":{"name":")" + name + R"(","labels":)" + labels(pid) +
                      R"(},"spec":{"containers":[{"name":"sandbox","image":"img",)"
                      R"("command":["sleep","infinity"]}]}})")
                  .status,
              0);
  }
  for (const auto& [name, pid] :
       {std::pair{std::string("dead"), dead}, std::pair{std::string("alive"), getpid()}}) {
    ASSERT_EQ(api("POST", kPolicies,
                  R"({"metadata":{"name":")" + name + R"(","labels":)" + labels(pid) +
                      R"(},"spec":{"podSelector":{"matchLabels":{"io.paddock.pod":")" + name +
                      R"("}},"policyTypes":["Ingress","Egress"]}})")
                  .status,
              0);
  }
  auto backend = connect_backend();
  ASSERT_TRUE(backend) << backend.error().message;
  EXPECT_NE(api("GET", kPolicies + "/dead").output.find("NotFound"), std::string::npos);
  EXPECT_EQ(api("GET", kPolicies + "/alive").output.find("NotFound"), std::string::npos);
  for (const char* kind : {"pods", "secrets"}) {
    std::string base = std::string("/api/v1/namespaces/default/") + kind;
    EXPECT_NE(api("GET", base + "/dead").output.find("NotFound"), std::string::npos) << kind;
    EXPECT_EQ(api("GET", base + "/alive").output.find("NotFound"), std::string::npos) << kind;
  }
}

// Code, files and stdin travel in the exec stream: none appears in a request line, which the
// API server's audit log and any proxy on the way record (the test server logs every one).
TEST_F(KubeExec, NoFileContentOrStdinTravelsInARequestUrl) {
  auto backend = connect_backend();
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec();
  auto session = (*backend)->open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(session) << session.error().message;
  const std::string file_marker = "FILE-CONTENT-MARKER-" + std::to_string(getpid());
  const std::string stdin_marker = "STDIN-MARKER-" + std::to_string(getpid());
  ASSERT_TRUE((*session)->write_file("note.txt", file_marker));
  int input[2];
  ASSERT_EQ(pipe2(input, O_CLOEXEC), 0);
  ASSERT_EQ(write(input[1], stdin_marker.data(), stdin_marker.size()),
            static_cast<ssize_t>(stdin_marker.size()));
  close(input[1]);
  runtime::ExecRequest request;
  request.argv = {"sh", "-c", "cat note.txt; cat"};
  request.stdin_fd = input[0];
  RecordingObserver observer;
  auto ran = (*session)->exec(request, observer);
  close(input[0]);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->stdout_data.data, file_marker + stdin_marker)
      << ran->stderr_data.data << " exit " << ran->exit_code << " " << server_->log();
  (*session)->close();
  std::string log = server_->log();
  EXPECT_NE(log.find("/exec?"), std::string::npos) << "the server logged no exec: " << log;
  for (const std::string& marker : {file_marker, stdin_marker}) {
    EXPECT_EQ(log.find(marker), std::string::npos) << marker << " in a request line";
    EXPECT_EQ(log.find(core::base64_encode(marker).substr(0, 16)), std::string::npos)
        << marker << " (in base64) in a request line";
  }
}

// A sandbox that is to have no network gets a deny-all NetworkPolicy before its pod is made: one
// per pod, selecting that pod and no other, for both directions, with no rule. It goes with the
// session. The results say that the cluster's network plugin is what enforces it.
TEST_F(KubeExec, APodWithoutNetworkHasADenyAllPolicyOfItsOwnWhileItLives) {
  auto backend = connect_backend();
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec();
  auto first = (*backend)->open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(first) << first.error().message;
  auto second = (*backend)->open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(second) << second.error().message;
  auto pods = items(kPods);
  auto policies = items(kPolicies);
  ASSERT_EQ(pods.size(), 2u);
  ASSERT_EQ(policies.size(), 2u) << server_->log();
  for (const auto& policy : policies) {
    const auto& rules = policy["spec"];
    EXPECT_EQ(rules["policyTypes"], nlohmann::json::parse(R"(["Ingress","Egress"])"));
    EXPECT_TRUE(rules.value("ingress", nlohmann::json::array()).empty()) << rules.dump();
    EXPECT_TRUE(rules.value("egress", nlohmann::json::array()).empty()) << rules.dump();
    EXPECT_FALSE(rules["podSelector"].contains("matchExpressions")) << rules.dump();
    std::string name = policy["metadata"]["name"];
    EXPECT_EQ(
        selected_pods(rules["podSelector"].value("matchLabels", nlohmann::json::object()), pods),
        std::vector<std::string>{name});
  }
  // Made before its pod, so that the pod is never on the network for a moment.
  std::string log = server_->log();
  auto policy_made = log.find("POST /apis/networking.k8s.io/v1/namespaces/default/networkpolicies");
  ASSERT_NE(policy_made, std::string::npos) << log;
  EXPECT_LT(policy_made, log.find("POST /api/v1/namespaces/default/pods")) << log;
  runtime::ExecRequest request;
  request.argv = {"true"};
  RecordingObserver observer;
  auto ran = (*first)->exec(request, observer);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_TRUE(ran->isolation.network.starts_with("none (a deny-all NetworkPolicy"))
      << ran->isolation.network;
  for (const char* unenforced : {"network", "seccomp_profile", "pids"}) {
    EXPECT_TRUE(has(ran->isolation.not_enforced, unenforced)) << unenforced;
  }
  // An installer in such a session would wait on name resolution: it is refused at once.
  request.network = true;
  auto install = (*first)->exec(request, observer);
  ASSERT_FALSE(install);
  EXPECT_NE(install.error().message.find("session has no network"), std::string::npos)
      << install.error().message;
  (*first)->close();
  auto left = items(kPolicies);
  ASSERT_EQ(left.size(), 1u) << left.dump();
  EXPECT_EQ(selected_pods(left[0]["spec"]["podSelector"]["matchLabels"], items(kPods)).size(), 1u)
      << "the other session's policy still selects its pod";
  (*second)->close();
  EXPECT_EQ(items(kPolicies).size(), 0u);
  EXPECT_EQ(items(kPods).size(), 0u);
}

// A run whose installer needs the network and whose program may have none: the pod is on the
// cluster's network for the installer's step, and its deny-all policy is made when that step
// ends, before the program's starts (issue 14, item 8).
TEST_F(KubeExec, TheInstallersNetworkEndsWithItsStep) {
  auto backend = connect_backend();
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec({"echo", "program-step-marker"});
  spec.prelude = {{"echo", "installer-step-marker"}};
  spec.networked_prelude = 1;
  RecordingObserver observer;
  auto ran = (*backend)->run(shape_of(spec), plan_of(spec), observer);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->outcome, runtime::Outcome::kExited);
  EXPECT_EQ(ran->stdout_data.data, "program-step-marker\n") << ran->stderr_data.data;
  EXPECT_TRUE(ran->isolation.network.starts_with("none after the installer's step"))
      << ran->isolation.network;
  std::string log = server_->log();
  auto installer = log.find("installer-step-marker");
  auto policy = log.find("POST " + kPolicies);
  auto program = log.find("program-step-marker");
  ASSERT_NE(installer, std::string::npos) << log;
  ASSERT_NE(policy, std::string::npos) << "no policy was made: " << log;
  ASSERT_NE(program, std::string::npos) << log;
  EXPECT_LT(installer, policy) << "the installer ran without the network: " << log;
  EXPECT_LT(policy, program) << "the program ran before its network went: " << log;
  EXPECT_EQ(items(kPolicies).size(), 0u) << "the policy outlived its pod";
}

// The policy goes with the pod however a run ends: by its timeout, or cancelled while it runs.
TEST_F(KubeExec, ThePolicyGoesWithThePodAfterATimeoutOrACancel) {
  auto backend = connect_backend();
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec({"sleep", "60"});
  spec.env = {"K=v"};
  spec.limits.wall_seconds = 2;
  RecordingObserver timing_out;
  auto timed_out = (*backend)->run(shape_of(spec), plan_of(spec), timing_out);
  ASSERT_TRUE(timed_out) << timed_out.error().message;
  EXPECT_EQ(timed_out->outcome, runtime::Outcome::kTimedOut);
  for (const auto& path : {kPods, kSecrets, kPolicies}) {
    EXPECT_EQ(items(path).size(), 0u) << path << " left after a timeout";
  }
  spec.limits.wall_seconds = 60;
  RecordingObserver cancelling;
  std::size_t policies_while_running = 0;
  std::thread canceller([&] {
    for (int i = 0; i < 300 && items(kPods).empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    policies_while_running = items(kPolicies).size();
    cancelling.token_.cancel();
  });
  auto cancelled = (*backend)->run(shape_of(spec), plan_of(spec), cancelling);
  canceller.join();
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->outcome, runtime::Outcome::kCancelled);
  EXPECT_EQ(policies_while_running, 1u);
  for (const auto& path : {kPods, kSecrets, kPolicies}) {
    EXPECT_EQ(items(path).size(), 0u) << path << " left after a cancel";
  }
}

// Where RBAC does not let paddock make NetworkPolicies (the test server's namespace
// "no-networkpolicies" answers 403), a sandbox without network is refused in one line that
// names the permission, and nothing is left; a sandbox given the network needs no policy.
TEST_F(KubeExec, WithoutLeaveToMakeThePolicyANoNetworkRunIsRefusedInOneLine) {
  auto backend = connect_backend("no-networkpolicies");
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec();
  spec.env = {"K=v"};
  RecordingObserver observer;
  auto refused = (*backend)->run(shape_of(spec), plan_of(spec), observer);
  ASSERT_FALSE(refused);
  const std::string& message = refused.error().message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const char* part :
       {"deny-all NetworkPolicy could not be created", "403", "cannot create resource",
        "let paddock's account create, list and delete networkpolicies (RBAC, API group "
        "networking.k8s.io) in namespace no-networkpolicies"}) {
    EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  }
  for (const char* kind : {"pods", "secrets"}) {
    EXPECT_EQ(items(std::string("/api/v1/namespaces/no-networkpolicies/") + kind).size(), 0u)
        << kind;
  }
  EXPECT_EQ(server_->log().find("POST /api/v1/namespaces/no-networkpolicies/"), std::string::npos)
      << server_->log();
  spec.network = runtime::NetworkMode::kHost;
  auto networked = (*backend)->run(shape_of(spec), plan_of(spec), observer);
  ASSERT_TRUE(networked) << networked.error().message;
  EXPECT_EQ(networked->exit_code, 0);
  EXPECT_TRUE(has(networked->isolation.not_enforced, "seccomp_profile"));
}

// A Localhost seccomp profile, by option or PADDOCK_KUBE_SECCOMP_PROFILE, is the pod's; the
// results name it and no longer list paddock's profile as unenforced. A path that would leave
// the kubelet's seccomp directory is one line, before anything is made.
TEST_F(KubeExec, ALocalhostSeccompProfileIsThePodsAndTheResultSaysSo) {
  auto backend = connect_backend(std::nullopt, {.seccomp_profile = "profiles/paddock.json"});
  ASSERT_TRUE(backend) << backend.error().message;
  TestSpec spec = sandbox_spec();
  auto session = (*backend)->open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(session) << session.error().message;
  auto pods = items(kPods);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(
      pods[0]["spec"]["securityContext"]["seccompProfile"],
      nlohmann::json::parse(R"({"type":"Localhost","localhostProfile":"profiles/paddock.json"})"));
  runtime::ExecRequest request;
  request.argv = {"true"};
  RecordingObserver observer;
  auto ran = (*session)->exec(request, observer);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_NE(ran->isolation.seccomp_profile.find("Localhost profiles/paddock.json"),
            std::string::npos)
      << ran->isolation.seccomp_profile;
  EXPECT_FALSE(has(ran->isolation.not_enforced, "seccomp_profile"));
  (*session)->close();

  setenv("PADDOCK_KUBE_SECCOMP_PROFILE", "from-env.json", 1);
  auto from_env = connect_backend();
  unsetenv("PADDOCK_KUBE_SECCOMP_PROFILE");
  ASSERT_TRUE(from_env) << from_env.error().message;
  auto env_session = (*from_env)->open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(env_session) << env_session.error().message;
  EXPECT_EQ(items(kPods)[0]["spec"]["securityContext"]["seccompProfile"]["localhostProfile"],
            "from-env.json");
  (*env_session)->close();

  setenv("PADDOCK_KUBE_SECCOMP_PROFILE", "../../etc/p.json", 1);
  auto climbing = connect_backend();
  unsetenv("PADDOCK_KUBE_SECCOMP_PROFILE");
  ASSERT_FALSE(climbing);
  EXPECT_NE(climbing.error().message.find("PADDOCK_KUBE_SECCOMP_PROFILE '../../etc/p.json' is "
                                          "not a seccomp profile path relative to the kubelet's"),
            std::string::npos)
      << climbing.error().message;
  EXPECT_EQ(climbing.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace paddock::testing::kube_exec_test
