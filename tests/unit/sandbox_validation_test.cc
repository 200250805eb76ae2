// What every backend refuses before starting anything (runtime/sandbox_validation.h), worded
// without any front-end's flags; the native backend adds its own checks on top, and the
// container backends (docker, podman, kubernetes: ContainerBackend) refuse the same before
// they create a container or pod.

#include "runtime/sandbox_validation.h"

#include <gtest/gtest.h>

#include <functional>
#include <type_traits>

#include "runtime/container/container_backend.h"
#include "runtime/engine/engine_backend.h"
#include "runtime/kube/kube_backend.h"
#include "runtime/native/spec_validation.h"

namespace paddock::sandbox_validation_test {
namespace {

struct Case {
  const char* what;
  std::function<void(runtime::SandboxShape&, runtime::RunPlan&)> spoil;
  const char* says;
};

runtime::RunPlan a_program() {
  runtime::RunPlan plan;
  plan.steps = {{"python3", "-c", "pass"}};
  return plan;
}

const std::vector<Case>& every_backends_refusals() {
  static const std::vector<Case> cases = {
      {"no program", [](runtime::SandboxShape&, runtime::RunPlan& p) { p.steps.clear(); },
       "no command given"},
      {"zero timeout", [](runtime::SandboxShape&, runtime::RunPlan& p) { p.wall_seconds = 0; },
       "the timeout"},
      {"a timeout past a week",
       [](runtime::SandboxShape&, runtime::RunPlan& p) { p.wall_seconds = 8 * 86400; },
       "at most 7 days"},
      {"no CPU time", [](runtime::SandboxShape& s, runtime::RunPlan&) { s.limits.cpu_seconds = 0; },
       "the CPU time limit"},
      {"one process", [](runtime::SandboxShape& s, runtime::RunPlan&) { s.limits.pids = 1; },
       "the process limit must be at least 2"},
      {"tiny memory",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.limits.memory_bytes = 4096; },
       "the memory limit must be at least 1 MiB"},
      {"a relative start directory",
       [](runtime::SandboxShape&, runtime::RunPlan& p) { p.cwd = "work"; },
       "the starting directory 'work'"},
      {"a work directory in /etc",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.workdir = "/etc/x"; },
       "work directory '/etc/x'"},
      {"a bare environment name",
       [](runtime::SandboxShape&, runtime::RunPlan& p) { p.env = {"NOVALUE"}; },
       "environment entry 'NOVALUE' must look like NAME=VALUE"},
      {"a file out of the work directory",
       [](runtime::SandboxShape&, runtime::RunPlan& p) {
         p.files = {{"../x", "data"}};
       },
       "must be a relative path inside the work directory"},
      {"files over the work directory's size",
       [](runtime::SandboxShape& s, runtime::RunPlan& p) {
         s.limits.work_bytes = 3;
         p.files_after_install = {{"a.txt", "data"}};
       },
       "do not fit the work directory's size"},
      {"root as the sandbox user",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.user.uid = 0; }, "must not be root"},
      {"an allowlist beside user networking",
       [](runtime::SandboxShape& s, runtime::RunPlan&) {
         s.allowed_hosts = {"pypi.org"};
         s.network = runtime::NetworkMode::kUser;
       },
       "cannot be combined with the network mode 'user'"},
      {"an installer pattern over a whole domain",
       [](runtime::SandboxShape&, runtime::RunPlan& p) { p.installer_allowed_hosts = {"*.com"}; },
       "allowed host '*.com'"},
      {"an unreadable stdin file",
       [](runtime::SandboxShape&, runtime::RunPlan& p) { p.stdin_path = "/nonexistent/input"; },
       "the stdin file /nonexistent/input cannot be read"},
  };
  return cases;
}

TEST(SandboxValidation, AGoodShapeAndPlanPass) {
  EXPECT_TRUE(runtime::validate_sandbox(runtime::SandboxShape{}, a_program()).ok());
  EXPECT_TRUE(runtime::validate_sandbox(runtime::SandboxShape{}, runtime::RunPlan{}, true).ok())
      << "a session has no steps";
}

TEST(SandboxValidation, EachProblemIsOneLineNamingTheSettingInWords) {
  for (const Case& c : every_backends_refusals()) {
    runtime::SandboxShape shape;
    runtime::RunPlan plan = a_program();
    c.spoil(shape, plan);
    core::Status valid = runtime::validate_sandbox(shape, plan);
    ASSERT_FALSE(valid.ok()) << c.what;
    EXPECT_NE(valid.error().message.find(c.says), std::string::npos)
        << c.what << ": " << valid.error().message;
    // No front-end's flag: an MCP client never typed one.
    EXPECT_EQ(valid.error().message.find("--"), std::string::npos) << valid.error().message;
    EXPECT_EQ(valid.error().message.find('\n'), std::string::npos) << valid.error().message;
  }
}

// The native backend checks the same, then what only it needs.
TEST(SandboxValidation, TheNativeBackendChecksTheSameAndItsOwn) {
  for (const Case& c : every_backends_refusals()) {
    runtime::SandboxShape shape;
    runtime::RunPlan plan = a_program();
    c.spoil(shape, plan);
    EXPECT_FALSE(native::validate_spec(shape, plan).ok()) << c.what;
  }
  runtime::SandboxShape shape;
  shape.host_etc = {"shadow"};
  EXPECT_TRUE(runtime::validate_sandbox(shape, a_program()).ok())
      << "host /etc entries are the native's";
  EXPECT_FALSE(native::validate_spec(shape, a_program()).ok());
}

// Docker and Podman (EngineBackend) and Kubernetes (KubeBackend) reach a sandbox only through
// ContainerBackend's check, run and open_session, which are final: what the recording backend
// below shows of them holds for each (their engines are the engine tests' to start).
static_assert(std::is_base_of_v<container::ContainerBackend, engine::EngineBackend>);
static_assert(std::is_base_of_v<container::ContainerBackend, kube::KubeBackend>);

// A container backend whose start records that it was reached.
class RecordingBackend final : public container::ContainerBackend {
 public:
  [[nodiscard]] std::string_view name() const override { return "recording"; }
  mutable int started = 0;

 protected:
  core::Result<std::unique_ptr<container::ContainerSession>> start(
      const runtime::SandboxShape& /*shape*/, const runtime::RunPlan& /*plan*/) const override {
    ++started;
    return core::Error{ENOTSUP, "reached start"};
  }
};

class Quiet final : public runtime::RunObserver {};

TEST(SandboxValidation, ContainerBackendsRefuseBeforeStartingAnything) {
  RecordingBackend backend;
  Quiet quiet;
  for (const Case& c : every_backends_refusals()) {
    runtime::SandboxShape shape;
    runtime::RunPlan plan = a_program();
    c.spoil(shape, plan);
    core::Status checked = backend.check(shape, plan);
    ASSERT_FALSE(checked.ok()) << c.what;
    EXPECT_NE(checked.error().message.find(c.says), std::string::npos) << checked.error().message;
    auto ran = backend.run(shape, plan, quiet);
    ASSERT_FALSE(ran.ok()) << c.what;
    EXPECT_NE(ran.error().message.find(c.says), std::string::npos) << ran.error().message;
  }
  EXPECT_EQ(backend.started, 0);
  // A valid plan gets as far as the engine.
  EXPECT_TRUE(backend.check(runtime::SandboxShape{}, a_program()).ok());
  auto ran = backend.run(runtime::SandboxShape{}, a_program(), quiet);
  EXPECT_EQ(backend.started, 1);
}

// What a container backend cannot carry out is refused by the same validation, from what the
// backend declares (BackendSupport), in one line that names the backend, the fix and the
// setting: never run without it.
struct Lack {
  const char* what;
  std::function<void(runtime::SandboxShape&, runtime::RunPlan&)> asks;
  const char* says;
  const char* setting;  // "": none of a front-end's
  bool engines_lack;    // docker and podman (kubernetes lacks every one)
};

const std::vector<Lack>& container_lacks() {
  static const std::vector<Lack> lacks = {
      {"an allowlist",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.allowed_hosts = {"pypi.org"}; },
       "cannot enforce an egress allowlist yet", "allowed_hosts", true},
      {"an installer limited to its index",
       [](runtime::SandboxShape&, runtime::RunPlan& p) {
         p.steps.insert(p.steps.begin(), {"pip", "install", "x"});
         p.networked_steps = 1;
         p.installer_allowed_hosts = {"pypi.org"};
       },
       "cannot limit a library installer to its package index", "install_network", true},
      {"a read-only share",
       [](runtime::SandboxShape& s, runtime::RunPlan&) {
         s.binds = {{"/srv/data", "/data"}};
       },
       "cannot bind host folders into a sandbox ('/srv/data')", "binds", true},
      {"brokered secrets' trust bundle",
       [](runtime::SandboxShape& s, runtime::RunPlan&) {
         s.trust_bundle = "/run/paddock/bundle.pem";
       },
       "cannot broker secrets", "secrets", true},
      {"memory.high",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.limits.memory_high_bytes = 64u << 20; },
       "cannot throttle memory below its limit", "", true},
      {"a CPU time limit",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.limits.cpu_seconds = 5; },
       "cannot limit each process's CPU time", "cpu_time", false},
      {"a denied system call",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.seccomp_deny = {"ptrace"}; },
       "allow or deny system calls", "kube_seccomp_profile", false},
      {"an allowed system call",
       [](runtime::SandboxShape& s, runtime::RunPlan&) { s.seccomp_allow = {"ptrace"}; },
       "allow or deny system calls", "kube_seccomp_profile", false},
      {"a profile file of this host",
       [](runtime::SandboxShape& s, runtime::RunPlan&) {
         s.seccomp_profile_path = "/etc/paddock/strict.json";
       },
       "load a seccomp profile file of this host", "kube_seccomp_profile", false},
  };
  return lacks;
}

TEST(SandboxValidation, WhatABackendLacksIsRefusedNamingTheSetting) {
  for (const Lack& lack : container_lacks()) {
    for (const runtime::BackendSupport& support :
         {container::container_support("docker"), kube::kube_support()}) {
      runtime::SandboxShape shape;
      runtime::RunPlan plan = a_program();
      lack.asks(shape, plan);
      ASSERT_TRUE(runtime::validate_sandbox(shape, plan).ok())
          << lack.what << ": the native backend's";
      core::Status valid = runtime::validate_sandbox(shape, plan, false, support);
      bool refused = support.backend == "kubernetes" || lack.engines_lack;
      ASSERT_EQ(valid.ok(), !refused) << lack.what << " on " << support.backend;
      if (!refused) continue;
      const std::string& message = valid.error().message;
      EXPECT_NE(message.find("the " + std::string(support.backend) + " backend"), std::string::npos)
          << message;
      EXPECT_NE(message.find(lack.says), std::string::npos) << message;
      EXPECT_EQ(valid.error().setting, lack.setting) << message;
      EXPECT_EQ(message.find("--"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      // A session is refused alike (an installer's network is a plan's, not a session's).
      if (plan.networked_steps == 0) {
        EXPECT_FALSE(runtime::validate_sandbox(shape, runtime::RunPlan{}, true, support).ok())
            << lack.what;
      }
    }
  }
}

// Through ContainerBackend: refused before any container is started, a run or a session.
TEST(SandboxValidation, ContainerBackendsRefuseWhatTheyLackBeforeStarting) {
  RecordingBackend backend;
  Quiet quiet;
  for (const Lack& lack : container_lacks()) {
    if (!lack.engines_lack) continue;
    runtime::SandboxShape shape;
    runtime::RunPlan plan = a_program();
    lack.asks(shape, plan);
    EXPECT_FALSE(backend.check(shape, plan).ok()) << lack.what;
    EXPECT_FALSE(backend.run(shape, plan, quiet).ok()) << lack.what;
    if (plan.networked_steps == 0) {
      EXPECT_FALSE(backend.open_session(shape, runtime::RunPlan{}).ok()) << lack.what;
    }
  }
  EXPECT_EQ(backend.started, 0);
}

TEST(SandboxValidation, ContainerSessionsAreCheckedAsSessions) {
  RecordingBackend backend;
  runtime::SandboxShape shape;
  shape.limits.pids = 1;
  auto refused = backend.open_session(shape, runtime::RunPlan{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the process limit"), std::string::npos);
  EXPECT_EQ(backend.started, 0);
  // A session's base has no steps, and that is no reason to refuse it.
  auto opened = backend.open_session(runtime::SandboxShape{}, runtime::RunPlan{});
  EXPECT_EQ(backend.started, 1);
}

}  // namespace
}  // namespace paddock::sandbox_validation_test
