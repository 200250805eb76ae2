// The container backends' pure parts: the create body's hardening, the seccomp profile handed to
// the engine, engine addresses, and the multiplexed exec stream.

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "runtime/container/container_config.h"
#include "runtime/engine/engine_client.h"
#include "runtime/engine/engine_stream.h"
#include "support/test_spec.h"

namespace paddock::engine::engine_config_test {
namespace {

using json = nlohmann::json;

TestSpec spec_with_limits() {
  TestSpec spec;
  spec.limits.memory_bytes = 256u << 20;
  spec.limits.pids = 64;
  spec.limits.cpus = 0.5;
  spec.user = {1234, 4321, "app"};
  return spec;
}

TEST(ContainerConfig, EveryHardeningIsInTheCreateBody) {
  json config =
      container::container_config(shape_of(spec_with_limits()), plan_of(spec_with_limits()),
                                  {.image = "img:1", .seccomp_json = R"({"defaultAction":"X"})"});
  const json& host = config["HostConfig"];
  EXPECT_EQ(config["Image"], "img:1");
  EXPECT_EQ(config["User"], "1234:4321");
  EXPECT_EQ(config["NetworkDisabled"], true);
  EXPECT_EQ(host["NetworkMode"], "none");
  EXPECT_EQ(host["CapDrop"], json::array({"ALL"}));
  EXPECT_EQ(host["SecurityOpt"][0], "no-new-privileges");
  EXPECT_EQ(host["SecurityOpt"][1], R"(seccomp={"defaultAction":"X"})");
  EXPECT_EQ(host["ReadonlyRootfs"], true);
  EXPECT_EQ(host["Memory"], 256u << 20);
  EXPECT_EQ(host["MemorySwap"], 256u << 20);  // no swap on top
  EXPECT_EQ(host["PidsLimit"], 64);
  EXPECT_EQ(host["NanoCpus"], 500000000);
  std::string work = host["Tmpfs"]["/work"];
  EXPECT_NE(work.find("size=268435456"), std::string::npos) << work;
  EXPECT_NE(work.find("uid=1234,gid=4321"), std::string::npos) << work;
  EXPECT_NE(work.find("nosuid"), std::string::npos);
  EXPECT_EQ(config["Labels"][container::kSandboxLabel], "1");
  EXPECT_EQ(config["Labels"]["io.paddock.pid"], std::to_string(getpid()));
  for (const char* label : {"io.paddock.instance", "io.paddock.machine", "io.paddock.boot",
                            "io.paddock.pidns", "io.paddock.started"}) {
    EXPECT_FALSE(config["Labels"][label].get<std::string>().empty()) << label;
  }
}

TEST(ContainerConfig, PodmanGetsAProfileFileAndItsOwnTmpfsOwner) {
  container::ContainerOptions options{"img", "{}", "/run/p/seccomp.json", true, true};
  json config = container::container_config(shape_of(spec_with_limits()),
                                            plan_of(spec_with_limits()), options);
  EXPECT_EQ(config["HostConfig"]["SecurityOpt"][1], "seccomp=/run/p/seccomp.json");
  std::string work = config["HostConfig"]["Tmpfs"]["/work"];
  EXPECT_NE(work.find(",U,"), std::string::npos) << work;
  EXPECT_EQ(work.find("uid="), std::string::npos) << work;
}

TEST(ContainerConfig, NetworkOnlyWhenAskedAndLimitsOnlyWhereEnforceable) {
  TestSpec spec = spec_with_limits();
  spec.networked_prelude = 1;
  container::ContainerOptions options{.image = "img", .seccomp_json = "{}"};
  options.resource_limits = false;
  json config = container::container_config(shape_of(spec), plan_of(spec), options);
  EXPECT_EQ(config["HostConfig"]["NetworkMode"], "bridge");
  EXPECT_FALSE(config["HostConfig"].contains("Memory"));
}

// Where the engine cannot use cgroups, rlimits still contain a fork bomb and a huge allocation.
TEST(ContainerConfig, RlimitsStandInWhereCgroupsCannot) {
  TestSpec spec = spec_with_limits();
  for (bool podman : {false, true}) {
    container::ContainerOptions options{.image = "img", .seccomp_json = "{}"};
    options.tmpfs_owner_option = podman;
    options.resource_limits = false;
    json ulimits = container::container_config(shape_of(spec), plan_of(spec),
                                               options)["HostConfig"]["Ulimits"];
    std::map<std::string, json> by_name;
    for (const auto& limit : ulimits) {
      EXPECT_TRUE(by_name.emplace(limit["Name"].get<std::string>(), limit).second)
          << "twice: " << limit.dump();
    }
    ASSERT_TRUE(by_name.contains("nproc")) << ulimits.dump();
    EXPECT_EQ(by_name["nproc"]["Hard"], spec.limits.pids);
    EXPECT_EQ(by_name["nproc"]["Soft"], spec.limits.pids);
    ASSERT_TRUE(by_name.contains("data")) << ulimits.dump();
    EXPECT_EQ(by_name["data"]["Hard"], spec.limits.memory_bytes);
  }
}

// The CPU time limit, which a shape carries for every backend, is the engine's rlimit as the
// native backend's: SIGXCPU at the limit, SIGKILL a second later.
TEST(ContainerConfig, TheCpuTimeLimitIsAnRlimit) {
  TestSpec spec = spec_with_limits();
  container::ContainerOptions options{.image = "img", .seccomp_json = "{}"};
  json ulimits =
      container::container_config(shape_of(spec), plan_of(spec), options)["HostConfig"]["Ulimits"];
  for (const auto& limit : ulimits) EXPECT_NE(limit["Name"], "cpu") << "none asked for";
  spec.limits.cpu_seconds = 2.5;
  ulimits =
      container::container_config(shape_of(spec), plan_of(spec), options)["HostConfig"]["Ulimits"];
  bool found = false;
  for (const auto& limit : ulimits) {
    if (limit["Name"] != "cpu") continue;
    found = true;
    EXPECT_EQ(limit["Soft"], 3);
    EXPECT_EQ(limit["Hard"], 4);
  }
  EXPECT_TRUE(found) << ulimits.dump();
}

TEST(SeccompProfileText, DeniedCallsLeaveEveryRuleAndAreRefused) {
  TestSpec spec;
  spec.seccomp_deny = {"socket"};
  spec.seccomp_allow = {"ptrace"};
  auto text = container::seccomp_profile_text(shape_of(spec));
  ASSERT_TRUE(text) << text.error().message;
  json profile = json::parse(*text);
  int refusals = 0, allows = 0;
  for (const auto& rule : profile["syscalls"]) {
    bool names_socket = false;
    for (const auto& name : rule["names"]) names_socket = names_socket || name == "socket";
    if (names_socket) {
      EXPECT_EQ(rule["action"], "SCMP_ACT_ERRNO");
      ++refusals;
    }
    for (const auto& name : rule["names"])
      allows += name == "ptrace" && rule["action"] == "SCMP_ACT_ALLOW";
  }
  EXPECT_EQ(refusals, 1);
  EXPECT_EQ(allows, 1);
  spec.seccomp_profile_path = "/no/such/profile.json";
  EXPECT_FALSE(container::seccomp_profile_text(shape_of(spec)));
}

TEST(EngineEndpoint, AddressesAsDockerHostWritesThem) {
  auto unix_socket = endpoint_from("unix:///run/x.sock", false, "");
  ASSERT_TRUE(unix_socket);
  EXPECT_EQ(unix_socket->unix_socket, "/run/x.sock");
  auto tls = endpoint_from("tcp://10.0.0.1:2376", true, "/certs");
  ASSERT_TRUE(tls);
  EXPECT_EQ(tls->base_url, "https://10.0.0.1:2376");
  EXPECT_EQ(tls->ca_file, "/certs/ca.pem");
  auto bad = endpoint_from("ssh://host", false, "");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unix:///path or tcp://host:port"), std::string::npos);
}

TEST(Demultiplexer, FramesCutAnywhereComeOutWhole) {
  std::string stream;
  auto frame = [&](char id, const std::string& payload) {
    stream += std::string{id, 0, 0, 0};
    auto size = static_cast<std::uint32_t>(payload.size());
    for (int shift : {24, 16, 8, 0}) stream += static_cast<char>((size >> shift) & 0xff);
    stream += payload;
  };
  frame(1, "out one\n");
  frame(2, "err\n");
  frame(1, std::string(70000, 'x'));
  for (std::size_t cut : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{4096}}) {
    std::string out, err;
    Demultiplexer demux(
        [&](int id, std::string_view payload) { (id == 1 ? out : err).append(payload); });
    for (std::size_t at = 0; at < stream.size(); at += cut) {
      demux.feed(std::string_view(stream).substr(at, cut));
    }
    EXPECT_EQ(out, "out one\n" + std::string(70000, 'x')) << cut;
    EXPECT_EQ(err, "err\n") << cut;
  }
}

}  // namespace
}  // namespace paddock::engine::engine_config_test
