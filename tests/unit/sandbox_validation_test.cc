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

namespace paddock {
namespace {

struct Case {
  const char* what;
  std::function<void(SandboxShape&, RunPlan&)> spoil;
  const char* says;
};

RunPlan a_program() {
  RunPlan plan;
  plan.steps = {{"python3", "-c", "pass"}};
  return plan;
}

const std::vector<Case>& every_backends_refusals() {
  static const std::vector<Case> cases = {
      {"no program", [](SandboxShape&, RunPlan& p) { p.steps.clear(); }, "no command given"},
      {"zero timeout", [](SandboxShape&, RunPlan& p) { p.wall_seconds = 0; }, "the timeout"},
      {"a timeout past a week", [](SandboxShape&, RunPlan& p) { p.wall_seconds = 8 * 86400; },
       "at most 7 days"},
      {"no CPU time", [](SandboxShape& s, RunPlan&) { s.limits.cpu_seconds = 0; },
       "the CPU time limit"},
      {"one process", [](SandboxShape& s, RunPlan&) { s.limits.pids = 1; },
       "the process limit must be at least 2"},
      {"tiny memory", [](SandboxShape& s, RunPlan&) { s.limits.memory_bytes = 4096; },
       "the memory limit must be at least 1 MiB"},
      {"a relative start directory", [](SandboxShape&, RunPlan& p) { p.cwd = "work"; },
       "the starting directory 'work'"},
      {"a work directory in /etc", [](SandboxShape& s, RunPlan&) { s.workdir = "/etc/x"; },
       "work directory '/etc/x'"},
      {"a bare environment name", [](SandboxShape&, RunPlan& p) { p.env = {"NOVALUE"}; },
       "environment entry 'NOVALUE' must look like NAME=VALUE"},
      {"a file out of the work directory",
       [](SandboxShape&, RunPlan& p) {
         p.files = {{"../x", "data"}};
       },
       "must be a relative path inside the work directory"},
      {"files over the work directory's size",
       [](SandboxShape& s, RunPlan& p) {
         s.limits.work_bytes = 3;
         p.files_after_install = {{"a.txt", "data"}};
       },
       "do not fit the work directory's size"},
      {"root as the sandbox user", [](SandboxShape& s, RunPlan&) { s.user.uid = 0; },
       "must not be root"},
      {"an allowlist beside user networking",
       [](SandboxShape& s, RunPlan&) {
         s.allowed_hosts = {"pypi.org"};
         s.network = NetworkMode::kUser;
       },
       "cannot be combined with the network mode 'user'"},
      {"an installer pattern over a whole domain",
       [](SandboxShape&, RunPlan& p) { p.installer_allowed_hosts = {"*.com"}; },
       "allowed host '*.com'"},
      {"an unreadable stdin file",
       [](SandboxShape&, RunPlan& p) { p.stdin_path = "/nonexistent/input"; },
       "the stdin file /nonexistent/input cannot be read"},
  };
  return cases;
}

TEST(SandboxValidation, AGoodShapeAndPlanPass) {
  EXPECT_TRUE(validate_sandbox(SandboxShape{}, a_program()).ok());
  EXPECT_TRUE(validate_sandbox(SandboxShape{}, RunPlan{}, true).ok()) << "a session has no steps";
}

TEST(SandboxValidation, EachProblemIsOneLineNamingTheSettingInWords) {
  for (const Case& c : every_backends_refusals()) {
    SandboxShape shape;
    RunPlan plan = a_program();
    c.spoil(shape, plan);
    Status valid = validate_sandbox(shape, plan);
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
    SandboxShape shape;
    RunPlan plan = a_program();
    c.spoil(shape, plan);
    EXPECT_FALSE(validate_spec(shape, plan).ok()) << c.what;
  }
  SandboxShape shape;
  shape.host_etc = {"shadow"};
  EXPECT_TRUE(validate_sandbox(shape, a_program()).ok()) << "host /etc entries are the native's";
  EXPECT_FALSE(validate_spec(shape, a_program()).ok());
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
  Result<std::unique_ptr<container::ContainerSession>> start(
      const SandboxShape& /*shape*/, const RunPlan& /*plan*/) const override {
    ++started;
    return Error{ENOTSUP, "reached start"};
  }
};

class Quiet final : public RunObserver {};

TEST(SandboxValidation, ContainerBackendsRefuseBeforeStartingAnything) {
  RecordingBackend backend;
  Quiet quiet;
  for (const Case& c : every_backends_refusals()) {
    SandboxShape shape;
    RunPlan plan = a_program();
    c.spoil(shape, plan);
    Status checked = backend.check(shape, plan);
    ASSERT_FALSE(checked.ok()) << c.what;
    EXPECT_NE(checked.error().message.find(c.says), std::string::npos) << checked.error().message;
    auto ran = backend.run(shape, plan, quiet);
    ASSERT_FALSE(ran.ok()) << c.what;
    EXPECT_NE(ran.error().message.find(c.says), std::string::npos) << ran.error().message;
  }
  EXPECT_EQ(backend.started, 0);
  // A valid plan gets as far as the engine.
  EXPECT_TRUE(backend.check(SandboxShape{}, a_program()).ok());
  auto ran = backend.run(SandboxShape{}, a_program(), quiet);
  EXPECT_EQ(backend.started, 1);
}

TEST(SandboxValidation, ContainerSessionsAreCheckedAsSessions) {
  RecordingBackend backend;
  SandboxShape shape;
  shape.limits.pids = 1;
  auto refused = backend.open_session(shape, RunPlan{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the process limit"), std::string::npos);
  EXPECT_EQ(backend.started, 0);
  // A session's base has no steps, and that is no reason to refuse it.
  auto opened = backend.open_session(SandboxShape{}, RunPlan{});
  EXPECT_EQ(backend.started, 1);
}

}  // namespace
}  // namespace paddock
