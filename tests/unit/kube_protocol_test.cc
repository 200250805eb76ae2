// The Kubernetes backend's wire formats: WebSocket frames (RFC 6455) as a client writes and
// reads them, and the exec channel protocols v4/v5.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/kube/exec_channels.h"
#include "runtime/kube/kube_exec.h"
#include "runtime/kube/kubeconfig.h"
#include "runtime/kube/localhost_profile.h"
#include "runtime/kube/websocket_frames.h"
#include "support/test_spec.h"

namespace paddock::kube::kube_protocol_test {
namespace {

// A server's frame: never masked.
std::string server_frame(Opcode opcode, const std::string& payload, bool final = true) {
  std::string out(1, static_cast<char>((final ? 0x80 : 0) | static_cast<int>(opcode)));
  if (payload.size() < 126) {
    out += static_cast<char>(payload.size());
  } else {
    out += static_cast<char>(126);
    out += static_cast<char>(payload.size() >> 8);
    out += static_cast<char>(payload.size() & 0xFF);
  }
  return out + payload;
}

TEST(WebSocketFrames, AClientFrameIsMaskedAndSized) {
  std::string frame = encode_client_frame({Opcode::kBinary, true, "abc"}, {1, 2, 3, 4});
  ASSERT_EQ(frame.size(), 2u + 4u + 3u);
  EXPECT_EQ(static_cast<unsigned char>(frame[0]), 0x82);
  EXPECT_EQ(static_cast<unsigned char>(frame[1]), 0x80 | 3);
  EXPECT_EQ(frame[6], 'a' ^ 1);
  EXPECT_EQ(frame[8], 'c' ^ 3);
  std::string big = encode_client_frame({Opcode::kBinary, true, std::string(70000, 'x')}, {});
  EXPECT_EQ(static_cast<unsigned char>(big[1]), 0x80 | 127);
  EXPECT_EQ(big.size(), 2u + 8u + 4u + 70000u);
}

TEST(WebSocketFrames, MessagesCutAnywhereAndFragmentedComeOutWhole) {
  std::string stream = server_frame(Opcode::kBinary, "\x01hel", false) +
                       server_frame(Opcode::kPing, "p") +
                       server_frame(Opcode::kContinuation, std::string(300, 'l') + "o") +
                       server_frame(Opcode::kClose, "");
  FrameReader reader;
  std::vector<Frame> frames;
  for (char c : stream) {
    reader.feed(std::string_view(&c, 1));
    auto frame = reader.next();
    ASSERT_TRUE(frame) << frame.error().message;
    if (*frame) frames.push_back(**frame);
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].opcode, Opcode::kPing);
  EXPECT_EQ(frames[1].opcode, Opcode::kBinary);
  EXPECT_EQ(frames[1].payload, "\x01hel" + std::string(300, 'l') + "o");
  EXPECT_EQ(frames[2].opcode, Opcode::kClose);
}

TEST(WebSocketFrames, WhatNoServerMaySendIsRefused) {
  for (const std::string& bad : {std::string("\x82\x81xxxxa"),                // masked
                                 std::string("\x83\x00", 2),                  // reserved opcode
                                 std::string("\xC2\x00", 2),                  // reserved bit
                                 server_frame(Opcode::kContinuation, "x"),    // nothing to continue
                                 server_frame(Opcode::kPing, "x", false)}) {  // fragmented control
    FrameReader reader;
    reader.feed(bad);
    EXPECT_FALSE(reader.next()) << bad;
  }
  FrameReader small(10);
  small.feed(server_frame(Opcode::kBinary, std::string(11, 'x')));
  EXPECT_FALSE(small.next());
}

TEST(WebSocketFrames, TheAcceptKeyIsRfc6455s) {
  // The example in RFC 6455 1.3.
  EXPECT_EQ(websocket_accept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(ExecChannels, ChannelsAndTheEndOfStdin) {
  auto message = split_channel("\x02oops");
  ASSERT_TRUE(message);
  EXPECT_EQ(message->channel, Channel::kStderr);
  EXPECT_EQ(message->data, "oops");
  EXPECT_FALSE(split_channel(""));
  EXPECT_EQ(stdin_message("in"), std::string("\0in", 3));
  EXPECT_EQ(close_stdin_message(), std::string("\xff\0", 2));
}

TEST(ExecChannels, TheExitCodeComesFromTheStatus) {
  EXPECT_EQ(*exit_code_of_status(R"({"metadata":{},"status":"Success"})"), 0);
  EXPECT_EQ(*exit_code_of_status(
                R"({"status":"Failure","reason":"NonZeroExitCode","message":"command terminated )"
                R"(with non-zero exit code: 3","details":{"causes":[{"reason":"ExitCode",)"
                R"("message":"3"}]}})"),
            3);
  auto failed = exit_code_of_status(
      R"({"status":"Failure","reason":"InternalError","message":"container not found"})");
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("container not found"), std::string::npos);
}

}  // namespace
}  // namespace paddock::kube::kube_protocol_test

namespace paddock::kube::kube_protocol_test {
namespace {

TEST(Kubeconfig, TheCurrentContextsClusterUserAndNamespace) {
  const char* config = R"(apiVersion: v1
kind: Config
current-context: work
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
contexts:
- name: work
  context: {cluster: prod, user: me, namespace: sandboxes}
users:
- name: me
  user:
    token: abc123
)";
  auto access = parse_kubeconfig(config, "/home/u/.kube/config");
  ASSERT_TRUE(access) << access.error().message;
  EXPECT_EQ(access->server, "https://10.0.0.1:6443");
  EXPECT_EQ(access->namespace_name, "sandboxes");
  EXPECT_EQ(access->ca_pem, "CA-PEM");
  EXPECT_EQ(access->token, "abc123");
  EXPECT_EQ(access->source, "/home/u/.kube/config (context work)");
}

TEST(Kubeconfig, JsonWorksAndMistakesAreNamed) {
  auto json = parse_kubeconfig(
      R"({"current-context": "c", "contexts": [{"name": "c", "context": {"cluster": "k"}}],)"
      R"( "clusters": [{"name": "k", "cluster": {"server": "https://k:6443"}}]})",
      "/k.json");
  ASSERT_TRUE(json) << json.error().message;
  EXPECT_EQ(json->namespace_name, "default");
  auto missing = parse_kubeconfig("current-context: nope\ncontexts: []\n", "/k");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no context 'nope'"), std::string::npos);
  auto plugin = parse_kubeconfig(
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
      "users: [{name: u, user: {exec: {command: aws}}}]\n",
      "/k");
  ASSERT_FALSE(plugin);
  EXPECT_NE(plugin.error().message.find("exec plugin"), std::string::npos);
}

// The pod runs its image as the sandbox user with nothing to escalate, and with --pull never
// the cluster is told not to pull.
TEST(PodManifest, RestrictedAndItsPullPolicyFollowsThePullSetting) {
  TestSpec spec;
  spec.image = "python:3.12";
  spec.user = {1000, 1000};
  auto pod = nlohmann::json::parse(pod_manifest(shape_of(spec), plan_of(spec), "paddock-x"));
  const auto& container = pod["spec"]["containers"][0];
  EXPECT_EQ(container["image"], "python:3.12");
  EXPECT_EQ(container["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"][0], "ALL");
  EXPECT_EQ(pod["spec"]["securityContext"]["runAsUser"], 1000);
  EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
  auto never = nlohmann::json::parse(
      pod_manifest(shape_of(spec), plan_of(spec), "paddock-x", {.pull_images = false}));
  EXPECT_EQ(never["spec"]["containers"][0]["imagePullPolicy"], "Never");
}

// The sandbox's own variables are in its Secret, and the pod takes them from there: whoever may
// read pods does not see a passed-through token.
TEST(PodManifest, TheSandboxsVariablesComeFromItsSecret) {
  TestSpec spec;
  spec.image = "python:3.12";
  spec.env = {"API_TOKEN=tok-5e1f2a", "MPLBACKEND=Agg"};
  std::string pod_text = pod_manifest(shape_of(spec), plan_of(spec), "paddock-x");
  EXPECT_EQ(pod_text.find("tok-5e1f2a"), std::string::npos) << pod_text;
  auto pod = nlohmann::json::parse(pod_text);
  bool found = false;
  for (const auto& variable : pod["spec"]["containers"][0]["env"]) {
    if (variable["name"] != "API_TOKEN") continue;
    found = true;
    EXPECT_FALSE(variable.contains("value"));
    EXPECT_EQ(variable["valueFrom"]["secretKeyRef"]["name"], "paddock-x");
    EXPECT_EQ(variable["valueFrom"]["secretKeyRef"]["key"], "API_TOKEN");
  }
  EXPECT_TRUE(found);
  auto secret = nlohmann::json::parse(secret_manifest(plan_of(spec), "paddock-x"));
  EXPECT_EQ(secret["kind"], "Secret");
  EXPECT_EQ(secret["metadata"]["name"], "paddock-x");
  EXPECT_EQ(secret["metadata"]["labels"]["io.paddock.sandbox"], "1");
  EXPECT_EQ(secret["stringData"]["API_TOKEN"], "tok-5e1f2a");
  EXPECT_EQ(secret["stringData"]["MPLBACKEND"], "Agg");
}

// A pod carries its own name as a label, which its NetworkPolicy selects it by: the policy
// selects that pod alone, for traffic in both directions, and allows none (no rule of either
// kind). It carries paddock's labels, by which a dead paddock's policies are found.
TEST(NetworkPolicy, DeniesBothDirectionsToItsOwnPodAlone) {
  TestSpec spec;
  spec.image = "python:3.12";
  auto pod = nlohmann::json::parse(pod_manifest(shape_of(spec), plan_of(spec), "paddock-0123abcd"));
  EXPECT_EQ(pod["metadata"]["labels"]["io.paddock.pod"], "paddock-0123abcd");
  auto policy = nlohmann::json::parse(network_policy_manifest("paddock-0123abcd"));
  EXPECT_EQ(policy["apiVersion"], "networking.k8s.io/v1");
  EXPECT_EQ(policy["kind"], "NetworkPolicy");
  EXPECT_EQ(policy["metadata"]["name"], "paddock-0123abcd");
  EXPECT_EQ(policy["metadata"]["labels"]["io.paddock.sandbox"], "1");
  EXPECT_TRUE(policy["metadata"]["labels"].contains("io.paddock.instance"));
  const auto& selector = policy["spec"]["podSelector"];
  EXPECT_EQ(selector,
            nlohmann::json::parse(R"({"matchLabels":{"io.paddock.pod":"paddock-0123abcd"}})"))
      << selector.dump();
  EXPECT_EQ(policy["spec"]["policyTypes"], nlohmann::json::parse(R"(["Ingress","Egress"])"));
  // Any rule, even an empty one ({}), would allow traffic: there must be none.
  for (const char* rules : {"ingress", "egress"}) {
    EXPECT_TRUE(!policy["spec"].contains(rules) || policy["spec"][rules].empty()) << rules;
  }
  EXPECT_EQ(network_policies_path("sandboxes"),
            "/apis/networking.k8s.io/v1/namespaces/sandboxes/networkpolicies");
}

// By default the pod gets the runtime's seccomp profile; with a Localhost profile, that one.
TEST(PodManifest, TheSeccompProfileIsTheRuntimesOrTheNamedLocalhostOne) {
  TestSpec spec;
  spec.image = "python:3.12";
  auto plain = nlohmann::json::parse(pod_manifest(shape_of(spec), plan_of(spec), "paddock-x"));
  EXPECT_EQ(plain["spec"]["securityContext"]["seccompProfile"],
            nlohmann::json::parse(R"({"type":"RuntimeDefault"})"));
  auto local = nlohmann::json::parse(pod_manifest(shape_of(spec), plan_of(spec), "paddock-x",
                                                  {.seccomp_profile = "profiles/paddock.json"}));
  EXPECT_EQ(
      local["spec"]["securityContext"]["seccompProfile"],
      nlohmann::json::parse(R"({"type":"Localhost","localhostProfile":"profiles/paddock.json"})"));
}

// A Localhost profile lives below the kubelet's seccomp directory: nothing absolute, nothing
// that climbs out of it.
TEST(LocalhostProfile, RelativeAndBelowTheKubeletsDirectoryOnly) {
  for (const char* good : {"paddock.json", "profiles/paddock.json", "a..b/p.json", "./p.json"}) {
    EXPECT_TRUE(valid_localhost_profile(good)) << good;
  }
  for (const char* bad :
       {"", "/etc/p.json", "..", "../p.json", "profiles/../../p.json", "profiles/..", "p\n.json"}) {
    EXPECT_FALSE(valid_localhost_profile(bad)) << bad;
  }
}

}  // namespace
}  // namespace paddock::kube::kube_protocol_test
