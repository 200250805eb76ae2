// `paddock mcp`'s configuration: flag over environment over policy default, every error one line
// naming what the user wrote, pass-through values never in an error.

#include <gtest/gtest.h>

#include <map>

#include "app/secret_mask.h"
#include "app/server_config.h"
#include "app/server_state.h"
#include "cli/command_line.h"
#include "cli/mcp_settings.h"
#include "language/policy_store.h"
#include "mcp/policy_overrides.h"
#include "mcp/progress_observer.h"
#include "support/test_spec.h"

namespace paddock::app::app_server_config_test {
namespace {

using cli::resolve_server_options;
using config::Environment;

Environment fake_environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end() || found->second.empty()) return std::nullopt;
    return found->second;
  };
}

config::FlagValues flags_of(std::vector<const char*> args) {
  args.insert(args.begin(), {"paddock", "mcp"});
  auto request = cli::parse_command_line(static_cast<int>(args.size()), args.data());
  EXPECT_TRUE(request) << request.error().message;
  return std::get<cli::McpRequest>(*request).flags;
}

core::Result<ServerOptions> resolve(std::vector<const char*> args,
                                    std::map<std::string, std::string> env = {}) {
  return resolve_server_options(flags_of(std::move(args)), fake_environment(std::move(env)));
}

TEST(AppServerConfig, DefaultsWithoutFlagsOrEnvironment) {
  auto options = resolve({});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->backend, "native");
  EXPECT_EQ(options->default_language, "python");
  EXPECT_FALSE(options->limits.memory_bytes);
  EXPECT_FALSE(options->network);
  EXPECT_TRUE(options->pass_through_env.empty());
  EXPECT_TRUE(options->pull_missing_images);
  EXPECT_EQ(options->max_sessions, 16u);
  // Unset: the backend's own default, written once (kube_settings.h).
  EXPECT_FALSE(options->pod_start_seconds);
}

TEST(AppServerConfig, PodStartTimeoutFromFlagOrVariable) {
  auto from_env = resolve({}, {{"PADDOCK_POD_START_TIMEOUT", "10m"}});
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->pod_start_seconds, 600);
  auto flagged = resolve({"--pod-start-timeout", "90s"}, {{"PADDOCK_POD_START_TIMEOUT", "10m"}});
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_EQ(flagged->pod_start_seconds, 90);
}

// Idle sessions are frozen after 5 minutes by default; seconds or a duration; 0 turns it off.
TEST(AppServerConfig, IdleFreezeFromFlagOrVariable) {
  auto none = resolve({});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->idle_freeze_seconds, 300);
  auto from_env = resolve({}, {{"PADDOCK_IDLE_FREEZE", "2m"}});
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->idle_freeze_seconds, 120);
  auto flagged = resolve({"--idle-freeze", "0"}, {{"PADDOCK_IDLE_FREEZE", "2m"}});
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_EQ(flagged->idle_freeze_seconds, 0);
  auto seconds = resolve({"--idle-freeze", "45"});
  ASSERT_TRUE(seconds) << seconds.error().message;
  EXPECT_EQ(seconds->idle_freeze_seconds, 45);
}

// A Localhost seccomp profile for Kubernetes pods: none by default, the flag over its variable.
TEST(AppServerConfig, KubeSeccompProfileFromFlagOrVariable) {
  auto none = resolve({});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->kube_seccomp_profile);
  auto from_env = resolve({}, {{"PADDOCK_KUBE_SECCOMP_PROFILE", "profiles/paddock.json"}});
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->kube_seccomp_profile, "profiles/paddock.json");
  auto flagged = resolve({"--kube-seccomp-profile", "paddock-python.json"},
                         {{"PADDOCK_KUBE_SECCOMP_PROFILE", "profiles/paddock.json"}});
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_EQ(flagged->kube_seccomp_profile, "paddock-python.json");
}

// The operator's seccomp profile, the same row as run's: flag over variable, into every call's
// overrides; the native backend's loads it at start, so a broken one stops the server.
TEST(AppServerConfig, SeccompProfileFromFlagOrVariableReachesEveryCall) {
  std::string profile = std::string(PADDOCK_SOURCE_DIR) + "/policies/seccomp/default.json";
  auto none = resolve({});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->seccomp_profile);
  EXPECT_FALSE(spec_overrides(*none).seccomp_profile_path);
  auto from_env = resolve({}, {{"PADDOCK_SECCOMP_PROFILE", profile}});
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(spec_overrides(*from_env).seccomp_profile_path, profile);
  auto flagged =
      resolve({"--seccomp-profile", profile.c_str()}, {{"PADDOCK_SECCOMP_PROFILE", "/nope"}});
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_EQ(flagged->seccomp_profile, profile);
  auto missing = resolve({"--seccomp-profile", "/no/such/profile.json"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/no/such/profile.json"), std::string::npos);
  auto pods = resolve({"--backend", "kubernetes"}, {{"PADDOCK_SECCOMP_PROFILE", profile}});
  ASSERT_FALSE(pods);
  EXPECT_NE(pods.error().message.find("--kube-seccomp-profile"), std::string::npos);
}

TEST(AppServerConfig, AFlagWinsOverItsVariable) {
  auto options = resolve({"--memory", "128m", "--timeout", "20s", "--backend", "podman"},
                         {{"PADDOCK_MEMORY", "64m"},
                          {"PADDOCK_TIMEOUT", "2s"},
                          {"PADDOCK_PIDS", "32"},
                          {"PADDOCK_BACKEND", "docker"},
                          {"PADDOCK_CPUS", "0.5"},
                          {"PADDOCK_OUTPUT_LIMIT", "4k"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(*options->limits.memory_bytes, 128u << 20);
  EXPECT_EQ(*options->limits.wall_seconds, 20);
  EXPECT_EQ(*options->limits.pids, 32u);  // no flag: the variable
  EXPECT_EQ(*options->limits.cpus, 0.5);
  EXPECT_EQ(*options->limits.output_bytes, 4096u);
  EXPECT_EQ(options->backend, "podman");
}

TEST(AppServerConfig, PaddockBackendWinsOverLlmSandboxsBackend) {
  EXPECT_EQ(resolve({}, {{"BACKEND", "docker"}})->backend, "docker");
  EXPECT_EQ(resolve({}, {{"BACKEND", "docker"}, {"PADDOCK_BACKEND", "podman"}})->backend, "podman");
}

TEST(AppServerConfig, TheServersLimitsWinOverEveryPolicysAndNothingElseChanges) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store) << store.error().message;
  auto python_before = **store->find("python");
  auto options = resolve({"--memory", "96m", "--network", "user", "--install-network", "none",
                          "--image", "python=python:3.12-slim"},
                         {{"PADDOCK_PIDS", "20"}});
  ASSERT_TRUE(options) << options.error().message;
  ASSERT_TRUE(mcp::apply_server_options(*options, *store));
  for (const auto& policy : store->all()) {
    TestSpec spec;
    policy.limits.apply_to(spec.limits);
    EXPECT_EQ(spec.limits.memory_bytes, 96u << 20) << policy.name;
    EXPECT_EQ(spec.limits.pids, 20u) << policy.name;
    EXPECT_EQ(policy.run_network, runtime::NetworkMode::kUser) << policy.name;
    EXPECT_EQ(policy.install_network, "none") << policy.name;
  }
  const language::LanguagePolicy& python = **store->find("python");
  EXPECT_EQ(python.rootfs, "image:python:3.12-slim");
  EXPECT_EQ(python.limits.wall_seconds, python_before.limits.wall_seconds);  // not set: kept
  EXPECT_EQ((*store->find("ruby"))->rootfs, "host");
}

TEST(AppServerConfig, PreloadListsPerLanguageOrOff) {
  auto options = resolve({"--preload", "python=numpy,pandas;r="});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_TRUE(options->warm_interpreters);
  EXPECT_EQ(options->preload.at("python"), (std::vector<std::string>{"numpy", "pandas"}));
  EXPECT_TRUE(options->preload.at("r").empty());
  auto off = resolve({}, {{"PADDOCK_PRELOAD", "off"}});
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_FALSE(off->warm_interpreters);
  auto bad = resolve({"--preload", "python=os;import"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--preload"), std::string::npos) << bad.error().message;
  auto unnamed = resolve({"--preload", "numpy"});
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("python=numpy,pandas"), std::string::npos)
      << unnamed.error().message;
}

TEST(AppServerConfig, ReadyKernelsByLanguageOrNone) {
  auto defaults = resolve({});
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->ready_kernels, (std::map<std::string, std::size_t>{{"python", 1}}));
  auto both = resolve({"--ready-kernels", "python=2,r=0"});
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(both->ready_kernels, (std::map<std::string, std::size_t>{{"python", 2}, {"r", 0}}));
  auto none = resolve({}, {{"PADDOCK_READY_KERNELS", "none"}});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->ready_kernels.empty());
  for (const char* bad : {"python", "python=", "=1", "python=5", "python=-1", "python=1x"}) {
    auto refused = resolve({"--ready-kernels", bad});
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("--ready-kernels"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("python=1,r=0"), std::string::npos)
        << refused.error().message;
  }
  // Languages are checked against the policies: one there is none of, and one without a kernel.
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store);
  auto klingon = app::check_ready_kernels(*resolve({"--ready-kernels", "klingon=1"}), *store);
  ASSERT_FALSE(klingon);
  EXPECT_NE(klingon.error().message.find("--ready-kernels: unknown language 'klingon'"),
            std::string::npos)
      << klingon.error().message;
  auto c = app::check_ready_kernels(*resolve({"--ready-kernels", "c=1"}), *store);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("c has no live sessions"), std::string::npos)
      << c.error().message;
  EXPECT_TRUE(app::check_ready_kernels(*resolve({"--ready-kernels", "python=1,r=1"}), *store));
}

TEST(AppServerConfig, ImagesFromEveryPlaceTheLaterWinning) {
  auto options = resolve({"--image", "ruby=ruby:3.3"},
                         {{"CONTAINER_IMAGE", "my/python:1"},
                          {"CONTAINER_LANGUAGE", "python"},
                          {"PADDOCK_IMAGES", "ruby=ruby:3.1,javascript=node:22"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->images.at("python"), "my/python:1");
  EXPECT_EQ(options->images.at("ruby"), "ruby:3.3");
  EXPECT_EQ(options->images.at("javascript"), "node:22");
}

TEST(AppServerConfig, PassThroughTakesOnlyTheNamedVariables) {
  auto options = resolve({"--pass-through-env", "API_KEY,TOKEN"},
                         {{"API_KEY", "k-123456"}, {"TOKEN", "t-987654"}, {"OTHER", "x"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->pass_through_env,
            (std::vector<std::string>{"API_KEY=k-123456", "TOKEN=t-987654"}));
}

TEST(AppServerConfig, EachBadSettingIsOneLineNamingIt) {
  struct Case {
    std::vector<const char*> args;
    std::map<std::string, std::string> env;
    std::string expected;
  };
  std::vector<Case> cases = {
      {{}, {{"PADDOCK_MEMORY", "12 parsecs"}}, "PADDOCK_MEMORY='12 parsecs' is not a size"},
      {{"--memory", "lots"}, {}, "--memory 'lots' is not a size"},
      {{}, {{"BACKEND", "dokker"}}, "BACKEND='dokker' is not a backend"},
      {{"--cpus", "0"}, {}, "--cpus '0' is not a CPU count"},
      {{"--pids", "-3"}, {}, "--pids '-3' is not a whole number"},
      {{"--network", "wide"}, {}, "--network 'wide' is not a network mode"},
      {{"--pass-through-env", "MISSING_ONE"}, {}, "MISSING_ONE, which is not set"},
      {{"--pass-through-env", "BAD-NAME"}, {}, "is not a list of variable names"},
      {{"--pass-through-env", "PADDOCK_ROOT"}, {{"PADDOCK_ROOT", "/x"}}, "paddock's own"},
      {{"--image", "python"}, {}, "--image 'python' is not LANG=IMAGE"},
      {{"--image", "python=UPPER/Case"}, {}, "--image python=UPPER/Case: image reference"},
      {{}, {{"CONTAINER_LANGUAGE", "python"}}, "CONTAINER_LANGUAGE is set without CONTAINER_IMAGE"},
      {{"--pull", "sometimes"}, {}, "--pull 'sometimes' is not a pull policy"},
      {{"--timeout", "10m"}, {}, "over the longest allowed"},
      {{"--session-idle", "soon"}, {}, "--session-idle 'soon' is not a duration"},
      {{"--idle-freeze", "-1"}, {}, "--idle-freeze '-1' is not a duration"},
      {{}, {{"PADDOCK_IDLE_FREEZE", "later"}}, "PADDOCK_IDLE_FREEZE='later' is not a duration"},
      {{"--namespace", "../x"}, {}, "--namespace '../x' is not a namespace name"},
      {{"--kube-seccomp-profile", "/var/lib/kubelet/seccomp/p.json"},
       {},
       "--kube-seccomp-profile '/var/lib/kubelet/seccomp/p.json' is not a seccomp profile path "
       "relative to the kubelet's seccomp directory"},
      {{},
       {{"PADDOCK_KUBE_SECCOMP_PROFILE", "profiles/../../../etc/p.json"}},
       "PADDOCK_KUBE_SECCOMP_PROFILE='profiles/../../../etc/p.json' is not a seccomp profile"},
      {{},
       {{"PADDOCK_POD_START_TIMEOUT", "0s"}},
       "PADDOCK_POD_START_TIMEOUT='0s' is not a duration"},
      {{"--audit-log", "relative.log"}, {}, "is not an absolute path"},
      {{}, {{"PADDOCK_LOG_LEVEL", "loud"}}, "PADDOCK_LOG_LEVEL='loud' is not a log level"},
      {{"--allow-private", "10.1.2.3/8"},
       {},
       "--allow-private '10.1.2.3/8' is not an IP address or CIDR range"},
      {{}, {{"PADDOCK_HOST_LOOPBACK_PORTS", "3141,0"}}, "is not a port"},
  };
  for (const auto& c : cases) {
    auto options = resolve(c.args, c.env);
    ASSERT_FALSE(options) << c.expected;
    EXPECT_NE(options.error().message.find(c.expected), std::string::npos)
        << options.error().message;
    EXPECT_EQ(options.error().message.find('\n'), std::string::npos) << options.error().message;
  }
}

TEST(AppServerConfig, WhatTheUserNetworkMayReachBeyondThePublicNetwork) {
  auto options = resolve({"--allow-private", "10.1.0.0/16,192.168.7.7"},
                         {{"PADDOCK_HOST_LOOPBACK_PORTS", "3141,8080"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->allowed_private_ranges,
            (std::vector<std::string>{"10.1.0.0/16", "192.168.7.7"}));
  EXPECT_EQ(options->host_loopback_ports, (std::vector<std::uint16_t>{3141, 8080}));
  auto none = resolve({});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->allowed_private_ranges.empty());
  EXPECT_TRUE(none->host_loopback_ports.empty());
}

TEST(AppServerConfig, UnknownLanguagesAreRefusedWhenAppliedToThePolicies) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store);
  auto options = resolve({"--default-language", "klingon"});
  ASSERT_TRUE(options);
  auto applied = mcp::apply_server_options(*options, *store);
  ASSERT_FALSE(applied);
  EXPECT_NE(applied.error().message.find("unknown language 'klingon'"), std::string::npos);
  options = resolve({"--image", "cobol=cobol:1"});
  applied = mcp::apply_server_options(*options, *store);
  ASSERT_FALSE(applied);
  EXPECT_NE(applied.error().message.find("'cobol'"), std::string::npos);
}

TEST(SecretMask, ReplacesEveryValueLongestFirstAndLeavesShortOnesNamed) {
  SecretMask mask({"A=abcd1234", "B=abcd", "C=xy"});
  EXPECT_EQ(mask.apply("key abcd1234 and abcd and xy; abcd1234abcd"),
            "key *** and *** and xy; ******");
  EXPECT_EQ(mask.unmasked(), std::vector<std::string>{"C"});
  EXPECT_EQ(SecretMask({}).apply("unchanged"), "unchanged");
}

TEST(SecretMask, MasksEachLineOfAMultiLineValue) {
  SecretMask mask({"KEY=-----BEGIN KEY-----\nAAAABBBB\n-----END KEY-----"});
  EXPECT_EQ(mask.apply("-----BEGIN KEY-----\nAAAABBBB\n-----END KEY-----"), "***");
  EXPECT_EQ(mask.apply("second line: AAAABBBB"), "second line: ***");
}

TEST(SecretMask, MasksTheBeginningOfAValueWhereTextWasCutOff) {
  SecretMask mask({"TOKEN=tok-e2e-5e1f2a", "OTHER=zzzz"});
  EXPECT_EQ(mask.apply("out tok-e2", true), "out ***");
  EXPECT_EQ(mask.apply("out tok-e2", false), "out tok-e2");
  EXPECT_EQ(mask.apply("out z", true), "out ***");
  EXPECT_EQ(mask.apply("out tok-e2e-5e1f2a", true), "out ***");
  EXPECT_EQ(mask.apply("nothing here", true), "nothing here");
  EXPECT_EQ(mask.longest(), 14u);
}

// Progress messages: whole lines, or 4 KiB of a line that does not end; a secret is never
// split between two messages, so none of it shows.
TEST(ProgressLines, NeverSplitsASecretBetweenMessages) {
  const std::string secret = "tok-e2e-5e1f2a";
  SecretMask mask({"TOKEN=" + secret});
  for (std::size_t shift = 0; shift < secret.size(); ++shift) {
    std::vector<std::string> sent;
    ProgressLines lines(mask, [&](const std::string& message) { sent.push_back(message); });
    std::string text = std::string(4097 - shift, '.') + secret + std::string(5000, '.') + "\n";
    for (std::size_t at = 0; at < text.size(); at += 7) lines.take(text.substr(at, 7));
    std::string all;
    for (const auto& message : sent) {
      for (std::size_t length = SecretMask::kShortest; length <= secret.size(); ++length) {
        for (std::size_t from = 0; from + length <= secret.size(); ++from) {
          ASSERT_EQ(message.find(secret.substr(from, length)), std::string::npos)
              << "shift " << shift << ": " << secret.substr(from, length);
        }
      }
      all += message;
    }
    EXPECT_EQ(all, std::string(4097 - shift, '.') + "***" + std::string(5000, '.'));
  }
}

TEST(ProgressLines, SendsWholeLinesAndCapsAMessage) {
  SecretMask mask({});
  std::vector<std::string> sent;
  ProgressLines lines(mask, [&](const std::string& message) { sent.push_back(message); });
  lines.take("one\ntw");
  lines.take("o\n");
  lines.take(std::string(100000, 'x') + "\n");
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0], "one");
  EXPECT_EQ(sent[1], "two");
  EXPECT_EQ(sent[2].size(), 64u * 1024);
}

TEST(AppServerConfig, SharesFromTheVariableThenEachFlag) {
  auto options = resolve({"--share", "/srv/b=bee:rw", "--share", "/srv/c"},
                         {{"PADDOCK_SHARE", "/srv/a=ay,/srv/z:rw"}});
  ASSERT_TRUE(options) << options.error().message;
  ASSERT_EQ(options->shares.size(), 4u);
  EXPECT_EQ(options->shares[0].host_dir, "/srv/a");
  EXPECT_EQ(options->shares[0].name, "ay");
  EXPECT_TRUE(options->shares[1].writable);
  EXPECT_EQ(options->shares[2].name, "bee");
  EXPECT_EQ(options->shares[3].host_dir, "/srv/c");
  EXPECT_EQ(options->transfer_caps.max_bytes, 1ull << 30);
  EXPECT_EQ(options->transfer_caps.max_files, 10'000u);
  auto capped = resolve({"--share-max-bytes", "200m"}, {{"PADDOCK_SHARE_MAX_FILES", "50"}});
  ASSERT_TRUE(capped) << capped.error().message;
  EXPECT_EQ(capped->transfer_caps.max_bytes, 200u << 20);
  EXPECT_EQ(capped->transfer_caps.max_files, 50u);
  auto bad = resolve({"--share", "/srv/x=no good"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("--share: share '/srv/x=no good'", 0), 0u)
      << bad.error().message;
  EXPECT_FALSE(resolve({"--share-max-files", "0"}));
}

TEST(AppServerConfig, AllowedHostsFromTheVariableThenEachFlag) {
  auto options = resolve({"--allow-host", "api.example.org", "--allow-host", "10.1.2.0/24"},
                         {{"PADDOCK_ALLOW_HOSTS", "*.pypi.org,files.example.org:8443"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->allowed_hosts,
            (std::vector<std::string>{"*.pypi.org", "files.example.org:8443", "api.example.org",
                                      "10.1.2.0/24"}));
  EXPECT_TRUE(resolve({})->allowed_hosts.empty());
  // One line naming the pattern, where it came from, and the accepted forms.
  auto bad = resolve({}, {{"PADDOCK_ALLOW_HOSTS", "ok.org,*.com"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("PADDOCK_ALLOW_HOSTS: allowed host '*.com' is a wildcard", 0),
            0u)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("use example.org, *.example.org"), std::string::npos);
  auto open = resolve({"--allow-host", "ok.org", "--network", "user"});
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().message.find("cannot be combined with --network user"), std::string::npos);
}

}  // namespace
}  // namespace paddock::app::app_server_config_test