// The one pipeline from a request to a SandboxShape and a RunPlan (language/spec_builder.h), for
// every built-in language, and for what the CLI and the MCP server send alike.

#include "language/spec_builder.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "language/builtin_policies.h"
#include "language/policy_store.h"
#include "support/test_spec.h"

namespace paddock::spec_builder_test {
namespace {

// What was built, as one value the checks below read.
TestSpec whole(const language::BuiltSpec& built) {
  return spec_of(built.shape, built.plan);
}

// A backend whose image store is a table: the builder's part (asking once, laying the answer
// under the spec) is what is tested here; real stores and engines have their own tests.
class TableBackend final : public runtime::Backend {
 public:
  [[nodiscard]] std::string_view name() const override { return "table"; }
  core::Result<runtime::RunResult> run(const runtime::SandboxShape& /*shape*/,
                                       const runtime::RunPlan& /*plan*/,
                                       runtime::RunObserver& /*observer*/) override {
    return core::Error{ENOTSUP, "not for running"};
  }
  [[nodiscard]] core::Result<runtime::ResolvedImage> resolve_image(
      const std::string& image, const std::optional<std::string>& store_root) const override {
    ++resolved;
    last_store_root = store_root;
    if (image != "paddock/test:1")
      return core::Error{ENOENT, "image " + image + " is not in the store"};
    runtime::ResolvedImage found;
    found.reference = image;
    found.layers = {"/store/layers/top", "/store/layers/base"};
    found.env = {"PATH=/opt/bin:/usr/bin", "IMAGE_ONLY=1"};
    found.user = runtime::SandboxUser{2000, 2000, "appuser"};
    found.working_dir = "/app";
    found.entrypoint = {"/entry"};
    found.cmd = {"serve"};
    return found;
  }
  mutable int resolved = 0;
  mutable std::optional<std::string> last_store_root;
};

const language::PolicyStore& builtins() {
  static const auto* store = new language::PolicyStore(*language::PolicyStore::load({}));
  return *store;
}

const language::LanguagePolicy& policy(const std::string& name) {
  return **builtins().find(name);
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(SpecBuilder, EveryBuiltInLanguageBecomesACompleteSpec) {
  TableBackend backend;
  for (const auto& language : builtins().all()) {
    language::CodeCall call;
    call.code = language.example;
    auto built = language::build_language_spec(language, call, {},
                                               language::ImageSource{&backend, {}, {}, {}});
    ASSERT_TRUE(built.ok()) << language.name << ": " << built.error().message;
    const TestSpec& spec = whole(*built);
    ASSERT_FALSE(spec.argv.empty()) << language.name;
    ASSERT_FALSE(spec.files.empty()) << language.name;
    EXPECT_EQ(spec.files[0].content, language.example) << language.name;
    EXPECT_EQ(spec.prelude.size(), language.compile.empty() ? 0u : 1u) << language.name;
    for (const auto& [variable, value] : language.env) {
      EXPECT_TRUE(has(spec.env, variable + "=" + value)) << language.name << ": " << variable;
    }
    EXPECT_EQ(spec.network, language.run_network) << language.name;
    EXPECT_EQ(spec.host_etc, language.host_etc) << language.name;
    EXPECT_EQ(spec.collect.directories, language.collect) << language.name;
    runtime::Limits expected;
    language.limits.apply_to(expected);
    EXPECT_EQ(spec.limits.wall_seconds, expected.wall_seconds) << language.name;
    EXPECT_EQ(spec.limits.memory_bytes, expected.memory_bytes) << language.name;
    EXPECT_FALSE(built->timeout_capped);
    EXPECT_EQ(backend.resolved, 0) << language.name << ": the host's /usr needs no image";
  }
}

TEST(SpecBuilder, EveryBuiltInLanguageWithAnInstallerGetsItFirstWithItsNetwork) {
  TableBackend backend;
  for (const auto& language : builtins().all()) {
    if (language.install.empty()) continue;
    language::CodeCall call;
    std::string library = language.name == "go" ? "example.com/somelib" : "somelib";
    call.libraries = {library};
    call.files = {{"data.csv", "a,b\n", 0644}};
    auto built = language::build_language_spec(language, call, {},
                                               language::ImageSource{&backend, {}, {}, {}});
    ASSERT_TRUE(built.ok()) << language.name << ": " << built.error().message;
    const TestSpec& spec = whole(*built);
    ASSERT_FALSE(spec.prelude.empty()) << language.name;
    EXPECT_EQ(spec.prelude[0][0], "/usr/bin/env") << language.name;
    EXPECT_TRUE(has(spec.prelude[0], library)) << language.name;
    // Each reaches its package index alone, through the sandbox's egress proxy.
    EXPECT_EQ(language.install_network, "allowlist") << language.name;
    EXPECT_EQ(spec.networked_prelude, 1u) << language.name;
    EXPECT_FALSE(spec.installer_allowed_hosts.empty()) << language.name;
    EXPECT_EQ(spec.installer_allowed_hosts, language.install_allow) << language.name;
    EXPECT_TRUE(has(spec.prelude[0], "HTTPS_PROXY=http://127.0.0.1:3128")) << language.name;
    EXPECT_TRUE(spec.allowed_hosts.empty()) << language.name << ": the program reaches nothing";
    EXPECT_FALSE(has(spec.env, "HTTPS_PROXY=http://127.0.0.1:3128")) << language.name;
    // The caller's files only after the installer.
    ASSERT_EQ(spec.files_after_install.size(), 1u);
    EXPECT_EQ(spec.files_after_install[0].path, "data.csv");
  }
}

// The operator's --allow-host is the program's list, and extends the installer's.
TEST(SpecBuilder, AllowedHostsGoToTheProgramAndExtendTheInstallersList) {
  TableBackend backend;
  language::SpecOverrides flags;
  flags.allowed_hosts = {"api.example.org"};
  language::CodeCall call;
  call.libraries = {"left-pad"};
  auto built = language::build_language_spec(policy("javascript"), call, flags,
                                             language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(whole(*built).allowed_hosts, (std::vector<std::string>{"api.example.org"}));
  EXPECT_EQ(whole(*built).installer_allowed_hosts,
            (std::vector<std::string>{"registry.npmjs.org", "api.example.org"}));
  // A language without an installer gets the program's list alone.
  auto bash = language::build_language_spec(policy("bash"), language::CodeCall{}, flags,
                                            language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(bash.ok());
  EXPECT_EQ(whole(*bash).allowed_hosts, (std::vector<std::string>{"api.example.org"}));
  EXPECT_TRUE(whole(*bash).installer_allowed_hosts.empty());
}

// An override that names no package index never turns into the open network.
TEST(SpecBuilder, AnAllowlistInstallerWithoutHostsIsRefused) {
  language::LanguagePolicy javascript = policy("javascript");
  javascript.install_allow.clear();
  language::CodeCall call;
  call.libraries = {"left-pad"};
  TableBackend backend;
  auto built = language::build_language_spec(javascript, call, {},
                                             language::ImageSource{&backend, {}, {}, {}});
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().message.find("network.install_allow"), std::string::npos);
}

// What `paddock run` sends: its flags over the policy.
TEST(SpecBuilder, TheOperatorsSettingsWinOverThePolicy) {
  TableBackend backend;
  language::SpecOverrides flags;
  flags.limits.memory_bytes = 64ull << 20;
  flags.env = {"MINE=1", "MPLBACKEND=svg"};
  flags.installer_env = {"PIP_INDEX_URL=http://mirror/"};
  flags.network = runtime::NetworkMode::kUser;
  flags.cwd = "/work/sub";
  flags.stdin_path = "/tmp/input";
  flags.binds = {{"/srv/data", "/data", false}};
  flags.require_cgroups = true;
  flags.collect_directories = {"results"};
  language::CodeCall call;
  call.code = "print(1)";
  call.libraries = {"numpy"};
  auto built = language::build_language_spec(policy("python"), call, flags,
                                             language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  const TestSpec& spec = whole(*built);
  EXPECT_EQ(spec.limits.memory_bytes, 64ull << 20);
  EXPECT_EQ(spec.limits.wall_seconds, 30);  // the policy's, not overridden
  EXPECT_TRUE(has(spec.env, "MINE=1"));
  // The flag comes after the policy's entry of the same name, so it wins when merged.
  auto policy_entry = std::find(spec.env.begin(), spec.env.end(), "MPLBACKEND=Agg");
  auto flag_entry = std::find(spec.env.begin(), spec.env.end(), "MPLBACKEND=svg");
  EXPECT_LT(policy_entry, flag_entry);
  EXPECT_TRUE(has(spec.prelude[0], "PIP_INDEX_URL=http://mirror/"));
  EXPECT_FALSE(has(spec.prelude[0], "MINE=1")) << "the program's env never reaches the installer";
  EXPECT_EQ(spec.network, runtime::NetworkMode::kUser);
  EXPECT_EQ(spec.cwd, "/work/sub");
  EXPECT_EQ(spec.stdin_path, "/tmp/input");
  ASSERT_EQ(spec.binds.size(), 1u);
  EXPECT_TRUE(spec.require_cgroups);
  EXPECT_TRUE(has(spec.collect.directories, "results"));
  EXPECT_TRUE(has(spec.collect.directories, ".paddock/plots"));
}

// What `paddock mcp` sends: the server's options, and a call's timeout, files and stdin.
TEST(SpecBuilder, ACallsTimeoutIsCappedAndItsPartsLandInTheSpec) {
  TableBackend backend;
  language::SpecOverrides server;
  server.max_wall_seconds = 60;
  server.env = {"API_KEY=secret-value"};
  server.allowed_private_ranges = {"10.1.0.0/16"};
  server.host_loopback_ports = {3128};
  server.max_collected_files = 16;
  server.max_collected_bytes = 4u << 20;
  language::CodeCall call;
  call.code = "print(1)";
  call.timeout_seconds = 600;
  call.files = {{"input.txt", "x", 0644}};
  call.stdin_fd = 7;
  auto built = language::build_language_spec(policy("python"), call, server,
                                             language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_TRUE(built->timeout_capped);
  EXPECT_EQ(whole(*built).limits.wall_seconds, 60);
  EXPECT_EQ(whole(*built).stdin_fd, 7);
  EXPECT_EQ(whole(*built).files_after_install.size(), 1u);
  EXPECT_TRUE(has(whole(*built).env, "API_KEY=secret-value"));
  EXPECT_EQ(whole(*built).allowed_private_ranges, std::vector<std::string>{"10.1.0.0/16"});
  EXPECT_EQ(whole(*built).host_loopback_ports, std::vector<std::uint16_t>{3128});
  EXPECT_EQ(whole(*built).collect.max_files, 16u);
  EXPECT_EQ(whole(*built).collect.max_bytes, 4u << 20);

  call.timeout_seconds = 5;
  built = language::build_language_spec(policy("python"), call, server,
                                        language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok());
  EXPECT_FALSE(built->timeout_capped);
  EXPECT_EQ(whole(*built).limits.wall_seconds, 5);
}

// Every timer the builder hands out is under the one cap: a session's calls, its installs, a
// live cell and what the catalog shows.
TEST(SpecBuilder, EveryTimeoutTheBuilderGivesIsUnderTheServersCap) {
  language::SpecOverrides server;
  server.max_wall_seconds = 45;
  language::CodeCall call;
  call.code = "print(1)";
  call.timeout_seconds = 600;
  auto in_session =
      language::build_session_call(policy("python"), call, server, language::SessionCall{});
  ASSERT_TRUE(in_session.ok()) << in_session.error().message;
  EXPECT_TRUE(in_session->timeout_capped);
  EXPECT_EQ(in_session->plan.wall_seconds, 45);
  // An install gets four times the policy's 30 s, but not past the cap.
  auto install = language::build_session_install(policy("python"), {"numpy"}, server);
  ASSERT_TRUE(install.ok()) << install.error().message;
  EXPECT_EQ(install->plan.wall_seconds, 45);
  EXPECT_EQ(language::build_session_install(policy("python"), {"numpy"}, {})->plan.wall_seconds,
            120);

  runtime::Limits session_limits;
  session_limits.wall_seconds = 10;
  session_limits.memory_bytes = 64ull << 20;
  language::BuiltCell cell =
      language::build_live_cell(policy("python"), 600.0, session_limits, server);
  EXPECT_TRUE(cell.timeout_capped);
  EXPECT_EQ(cell.limits.wall_seconds, 45);
  EXPECT_EQ(cell.limits.memory_bytes, 64ull << 20);
  cell = language::build_live_cell(policy("python"), std::nullopt, session_limits, server);
  EXPECT_FALSE(cell.timeout_capped);
  EXPECT_EQ(cell.limits.wall_seconds, 30);  // the policy's own

  server.max_wall_seconds = 20;
  EXPECT_EQ(language::language_limits(policy("python"), server).wall_seconds, 20);
  EXPECT_EQ(language::language_limits(policy("python"), {}).wall_seconds, 30);
}

TEST(SpecBuilder, AnImageIsResolvedOnceAndLaidUnderALanguageRun) {
  TableBackend backend;
  int ensured = 0;
  language::ImageSource source{&backend, "paddock/test:1", "/my/store",
                               [&](const std::string& image) {
                                 ++ensured;
                                 EXPECT_EQ(image, "paddock/test:1");
                                 return core::Status{};
                               }};
  language::CodeCall call;
  call.code = "print(1)";
  auto built = language::build_language_spec(policy("python"), call, {}, source);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(backend.resolved, 1);
  EXPECT_EQ(ensured, 1);
  EXPECT_EQ(backend.last_store_root, "/my/store");
  const TestSpec& spec = whole(*built);
  EXPECT_EQ(spec.image, "paddock/test:1");
  EXPECT_EQ(spec.image_layers.size(), 2u);
  EXPECT_EQ(spec.env.front(), "PATH=/opt/bin:/usr/bin");  // the image's first: ours override
  EXPECT_EQ(spec.user.name, "appuser");
  // A language run keeps its own command and directory.
  EXPECT_EQ(spec.argv[0], "python3");
  EXPECT_EQ(spec.cwd, "");

  auto missing = language::build_language_spec(
      policy("python"), call, {}, language::ImageSource{&backend, "paddock/none:1", {}, {}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("language python"), std::string::npos);
  EXPECT_NE(missing.error().message.find("not in the store"), std::string::npos);
}

TEST(SpecBuilder, ACommandRunTakesTheImagesEntrypointAndSeesEveryLanguagesEtc) {
  TableBackend backend;
  auto built =
      language::build_command_spec(runtime::SandboxShape{}, runtime::RunPlan{},
                                   language::ImageSource{&backend, "paddock/test:1", {}, {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(whole(*built).argv, (std::vector<std::string>{"/entry", "serve"}));
  EXPECT_EQ(whole(*built).cwd, "/app");
  TestSpec flags;
  flags.argv = {"--verbose"};
  built = language::build_command_spec(shape_of(flags), plan_of(flags),
                                       language::ImageSource{&backend, "paddock/test:1", {}, {}});
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(whole(*built).argv, (std::vector<std::string>{"/entry", "--verbose"}));

  flags.argv = {"java", "-version"};
  built = language::build_command_spec(shape_of(flags), plan_of(flags),
                                       language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(whole(*built).host_etc, language::builtin_host_etc());
  EXPECT_TRUE(has(whole(*built).host_etc, "java-17-openjdk"));
  EXPECT_TRUE(has(whole(*built).host_etc, "python3"));
}

TEST(SpecBuilder, ASessionHasTheLanguagesSandboxButNoCodeOrSteps) {
  TableBackend backend;
  language::SpecOverrides server;
  server.env = {"TOKEN=abcdefgh"};
  auto built = language::build_session_spec(policy("python"), server,
                                            language::ImageSource{&backend, {}, {}, {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  const TestSpec& spec = whole(*built);
  EXPECT_TRUE(spec.argv.empty());
  EXPECT_TRUE(spec.prelude.empty());
  for (const auto& file : spec.files) EXPECT_NE(file.path, "main.py");
  EXPECT_TRUE(has(spec.env, "TOKEN=abcdefgh"));
  EXPECT_TRUE(has(spec.env, "PADDOCK_PLOTS_DIR=/work/.paddock/plots"));

  language::LanguagePolicy host_network = policy("python");
  host_network.run_network = runtime::NetworkMode::kHost;
  auto refused =
      language::build_session_spec(host_network, {}, language::ImageSource{&backend, {}, {}, {}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("host's network"), std::string::npos);
}

TEST(SpecBuilder, AToolchainProbeRunsInTheLanguagesSandboxWithoutCode) {
  TableBackend backend;
  for (const auto& language : builtins().all()) {
    if (language.version_command.empty()) continue;
    auto built = language::build_toolchain_spec(language, language.version_command, 20, {},
                                                language::ImageSource{&backend, {}, {}, {}});
    ASSERT_TRUE(built.ok()) << language.name << ": " << built.error().message;
    EXPECT_EQ(whole(*built).argv, language.version_command) << language.name;
    EXPECT_TRUE(whole(*built).prelude.empty()) << language.name;
    EXPECT_EQ(whole(*built).limits.wall_seconds, 20) << language.name;
    EXPECT_EQ(whole(*built).host_etc, language.host_etc) << language.name;
  }
}

TEST(SandboxSpec, HostEtcNamesArePlainAndNeverSecrets) {
  for (const char* good : {"python3", "java-17-openjdk", "R", "matplotlibrc", "ld.so.conf.d"}) {
    EXPECT_TRUE(runtime::is_host_etc_name(good)) << good;
  }
  for (const char* bad : {"", ".", "..", "../shadow", "ssl/private", "shadow", "gshadow", "sudoers",
                          "ssh", "passwd", "hosts", "resolv.conf", "a b", "x\n"}) {
    EXPECT_FALSE(runtime::is_host_etc_name(bad)) << bad;
  }
}

}  // namespace
}  // namespace paddock::spec_builder_test

namespace paddock::spec_builder_test {
namespace {

// A live kernel's environment is the session's with the policy's changes: "K=V" replaces K, a
// bare "K" removes it (a plot hook the kernel does not want).
TEST(MergeEnv, AnEntryReplacesByNameAndABareNameRemoves) {
  std::vector<std::string> env = {"A=1", "PYTHONPATH=/work/.paddock/python", "AB=2"};
  auto merged = runtime::merge_env(env, {"A=3", "PYTHONPATH", "C=4"});
  EXPECT_EQ(merged, (std::vector<std::string>{"AB=2", "A=3", "C=4"}));
}

}  // namespace
}  // namespace paddock::spec_builder_test
