#include "cli/command_line.h"
#include "support/test_spec.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

namespace paddock::cli::command_line_test {
namespace {

// What the flags set, as one value the checks below read.
TestSpec flags_of(const RunRequest& request) {
  return spec_of(request.shape, request.plan);
}

core::Result<Request> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "paddock");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

RunRequest run_request(std::vector<std::string> args) {
  auto request = parse(std::move(args));
  EXPECT_TRUE(request.ok()) << (request.ok() ? "" : request.error().message);
  if (!request.ok() || !std::holds_alternative<RunRequest>(*request)) return {};
  return std::get<RunRequest>(*request);
}

std::string error_of(std::vector<std::string> args) {
  auto request = parse(std::move(args));
  EXPECT_FALSE(request.ok());
  return request.ok() ? "" : request.error().message;
}

TEST(CommandLine, CommandAfterDoubleDashIsTakenVerbatim) {
  RunRequest request = run_request({"run", "--", "python3", "-c", "print(1)", "--json", "--"});
  EXPECT_EQ(flags_of(request).argv,
            (std::vector<std::string>{"python3", "-c", "print(1)", "--json", "--"}));
  EXPECT_FALSE(request.json);
}

TEST(CommandLine, CommandWithoutDoubleDash) {
  RunRequest request = run_request({"run", "--json", "echo", "a", "-n"});
  EXPECT_EQ(flags_of(request).argv, (std::vector<std::string>{"echo", "a", "-n"}));
  EXPECT_TRUE(request.json);
}

TEST(CommandLine, RepeatableFlagsTakeOneValueEach) {
  RunRequest request = run_request({"run", "--env", "A=1", "--ro-bind", "/usr:/u", "echo", "hi"});
  EXPECT_EQ(flags_of(request).env, (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(flags_of(request).binds.size(), 1u);
  EXPECT_EQ(flags_of(request).argv, (std::vector<std::string>{"echo", "hi"}));
}

TEST(CommandLine, EveryRunFlagReachesTheSpec) {
  RunRequest request = run_request({"run",
                                    "--timeout",
                                    "2.5",
                                    "--memory",
                                    "128m",
                                    "--pids",
                                    "64",
                                    "--cpu-time",
                                    "3",
                                    "--output-limit",
                                    "10k",
                                    "--file-size",
                                    "1m",
                                    "--tmp-size",
                                    "8m",
                                    "--work-size",
                                    "16m",
                                    "--env",
                                    "A=1",
                                    "--env",
                                    "B=x=y",
                                    "--workdir",
                                    "/tmp",
                                    "--network",
                                    "host",
                                    "--stdin",
                                    "/etc/hostname",
                                    "--ro-bind",
                                    "/usr/share:/data",
                                    "--seccomp-profile",
                                    "/x.json",
                                    "--",
                                    "true"});
  const TestSpec spec = flags_of(request);
  EXPECT_EQ(spec.limits.wall_seconds, 2.5);
  EXPECT_EQ(spec.limits.memory_bytes, 128ull << 20);
  EXPECT_EQ(spec.limits.pids, 64u);
  EXPECT_EQ(spec.limits.cpu_seconds, 3.0);
  EXPECT_EQ(spec.limits.output_bytes, 10u * 1024);
  EXPECT_EQ(spec.limits.file_size_bytes, 1u << 20);
  EXPECT_EQ(spec.limits.tmp_bytes, 8u << 20);
  EXPECT_EQ(spec.limits.work_bytes, 16u << 20);
  EXPECT_EQ(spec.env, (std::vector<std::string>{"A=1", "B=x=y"}));
  EXPECT_EQ(spec.cwd, "/tmp");
  EXPECT_EQ(spec.network, runtime::NetworkMode::kHost);
  EXPECT_EQ(spec.stdin_path, "/etc/hostname");
  ASSERT_EQ(spec.binds.size(), 1u);
  EXPECT_EQ(spec.binds[0].host_path, "/usr/share");
  EXPECT_EQ(spec.binds[0].sandbox_path, "/data");
  EXPECT_FALSE(spec.binds[0].writable);
  EXPECT_EQ(spec.seccomp_profile_path, "/x.json");
}

// The kubernetes backend's choices are the same rows as the server's: flag over variable, the
// pod's start default written once (kube_settings.h).
TEST(CommandLine, RunTakesTheKubernetesBackendsChoices) {
  RunRequest plain = run_request({"run", "--", "true"});
  EXPECT_FALSE(plain.kube.namespace_name);
  EXPECT_EQ(plain.kube.pods.start_seconds, kube::PodOptions{}.start_seconds);
  EXPECT_FALSE(plain.kube.pods.seccomp_profile);
  RunRequest request = run_request({"run", "--backend", "kubernetes", "--namespace", "sandboxes",
                                    "--pod-start-timeout", "5m", "--kube-seccomp-profile",
                                    "profiles/paddock.json", "--", "true"});
  EXPECT_EQ(request.kube.namespace_name, "sandboxes");
  EXPECT_EQ(request.kube.pods.start_seconds, 300);
  EXPECT_EQ(request.kube.pods.seccomp_profile, "profiles/paddock.json");
  EXPECT_EQ(request.kube.seccomp_profile_source, "--kube-seccomp-profile");
  EXPECT_NE(error_of({"run", "--namespace", "../x", "--", "true"})
                .find("--namespace '../x' is not a namespace name"),
            std::string::npos);
}

// The server's --install-network, for run's --lib installer; a command has no installer.
TEST(CommandLine, InstallNetworkIsALanguageRunsOverThePolicy) {
  RunRequest plain = run_request({"run", "--lang", "python", "--code", "1"});
  ASSERT_TRUE(plain.language);
  EXPECT_FALSE(plain.language->install_network);
  RunRequest request = run_request(
      {"run", "--lang", "python", "--install-network", "none", "--lib", "six", "--code", "1"});
  ASSERT_TRUE(request.language);
  EXPECT_EQ(request.language->install_network, "none");
  EXPECT_EQ(error_of({"run", "--install-network", "user", "--", "true"}),
            "--install-network needs --lang");
  EXPECT_NE(error_of({"run", "--lang", "python", "--install-network", "wide", "--code", "1"})
                .find("--install-network 'wide' is not a network mode"),
            std::string::npos);
}

// A pod cannot load a profile file of this host: refused, never ignored.
TEST(CommandLine, SeccompProfileIsRefusedWhereThePodCannotLoadIt) {
  EXPECT_NE(
      error_of({"run", "--backend", "kubernetes", "--seccomp-profile", "/x.json", "--", "true"})
          .find("name it with --kube-seccomp-profile"),
      std::string::npos);
  for (const char* backend : {"native", "docker", "podman"}) {
    RunRequest request =
        run_request({"run", "--backend", backend, "--seccomp-profile", "/x.json", "--", "true"});
    EXPECT_EQ(flags_of(request).seccomp_profile_path, "/x.json") << backend;
  }
}

TEST(CommandLine, DefaultsAreSafe) {
  RunRequest request = run_request({"run", "--", "true"});
  EXPECT_EQ(flags_of(request).network, runtime::NetworkMode::kNone);
  EXPECT_FALSE(flags_of(request).stdin_path.has_value());
  EXPECT_FALSE(request.stdin_from_terminal);
  EXPECT_TRUE(flags_of(request).binds.empty());
  EXPECT_EQ(flags_of(request).limits.output_bytes, 1u << 20);
}

TEST(CommandLine, StdinDashMeansPaddocksOwn) {
  EXPECT_TRUE(run_request({"run", "--stdin", "-", "--", "cat"}).stdin_from_terminal);
}

TEST(CommandLine, ErrorsNameTheProblem) {
  EXPECT_NE(error_of({"run", "--bogus", "--", "true"}).find("--bogus"), std::string::npos);
  EXPECT_NE(error_of({"run", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(error_of({"run"}).find("no command"), std::string::npos);
  EXPECT_NE(error_of({"run", "--pids", "many", "--", "x"}).find("--pids"), std::string::npos);
  EXPECT_NE(error_of({"run", "--ro-bind", "nocolon", "--", "x"}).find("HOST_PATH:SANDBOX_PATH"),
            std::string::npos);
  EXPECT_NE(error_of({"run", "echo", "--", "x"}).find("before --"), std::string::npos);
  EXPECT_NE(error_of({"doctor", "--", "x"}).find("doctor"), std::string::npos);
  EXPECT_FALSE(error_of({}).empty());
}

TEST(CommandLine, LanguageRunsTakeCodeOrAFileAndProgramArguments) {
  RunRequest inline_code = run_request({"run", "--lang", "python", "--code", "print(1)"});
  ASSERT_TRUE(inline_code.language.has_value());
  EXPECT_EQ(inline_code.language->language, "python");
  EXPECT_EQ(inline_code.language->code, "print(1)");
  RunRequest file = run_request({"run", "--lang", "ruby", "script.rb", "--", "a", "b"});
  ASSERT_TRUE(file.language.has_value());
  EXPECT_EQ(file.language->code_file, "script.rb");
  EXPECT_EQ(file.language->program_args, (std::vector<std::string>{"a", "b"}));
  RunRequest from_stdin = run_request({"run", "--lang", "c", "-"});
  EXPECT_EQ(from_stdin.language->code_file, "-");
  EXPECT_NE(error_of({"run", "--lang", "python"}).find("no code given"), std::string::npos);
  EXPECT_NE(error_of({"run", "--code", "x", "--", "true"}).find("--code needs --lang"),
            std::string::npos);
}

TEST(CommandLine, OnlyTheFlagsGivenOverrideAPolicy) {
  RunRequest request = run_request({"run", "--lang", "go", "--memory", "1g", "--code", "x"});
  EXPECT_EQ(request.limit_flags.memory_bytes, 1ull << 30);
  EXPECT_FALSE(request.limit_flags.pids.has_value());
  EXPECT_FALSE(request.limit_flags.wall_seconds.has_value());
  EXPECT_FALSE(request.network_given);
  EXPECT_TRUE(run_request({"run", "--network", "none", "--", "true"}).network_given);
}

TEST(CommandLine, PolicyCommands) {
  auto list = parse({"policy", "list"});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(std::get<PolicyRequest>(*list).action, "list");
  auto show = parse({"policy", "show", "python", "--policy-dir", "/etc/x"});
  ASSERT_TRUE(show.ok());
  EXPECT_EQ(std::get<PolicyRequest>(*show).argument, "python");
  EXPECT_EQ(std::get<PolicyRequest>(*show).policy_dir, "/etc/x");
  EXPECT_NE(error_of({"policy", "check"}).find("needs a policy file"), std::string::npos);
  EXPECT_FALSE(error_of({"policy", "frob"}).empty());
}

TEST(CommandLine, HelpIsInformationNotAnError) {
  auto request = parse({"run", "--help"});
  ASSERT_TRUE(request.ok());
  ASSERT_TRUE(std::holds_alternative<InfoRequest>(*request));
  EXPECT_NE(std::get<InfoRequest>(*request).text.find("--memory"), std::string::npos);
}

TEST(CommandLine, VersionNamesTheVersionAndTheCommit) {
  auto request = parse({"--version"});
  ASSERT_TRUE(request.ok());
  ASSERT_TRUE(std::holds_alternative<InfoRequest>(*request));
  // A build from a checkout names its commit (git describe, "-dirty" with changes); one from a
  // tarball says so rather than naming nothing.
  EXPECT_TRUE(RE2::FullMatch(
      std::get<InfoRequest>(*request).text,
      R"(paddock \d+\.\d+\.\d+ \((commit [0-9A-Za-z._-]*[0-9a-f]{12}(-dirty)?|unknown commit)\)\n)"))
      << std::get<InfoRequest>(*request).text;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(CommandLine, RunHelpHasOneUsageLineAndEveryBackend) {
  auto request = parse({"run", "--help"});
  ASSERT_TRUE(request.ok());
  const std::string& help = std::get<InfoRequest>(*request).text;
  EXPECT_EQ(occurrences(help, "Usage:"), 1u) << help;
  EXPECT_NE(help.find("Usage: paddock run [OPTIONS] -- COMMAND [ARGS...]"), std::string::npos)
      << help;
  for (const char* backend : {"native", "docker", "podman", "kubernetes"}) {
    EXPECT_NE(help.find(backend), std::string::npos) << backend << " missing from:\n" << help;
  }
}

TEST(CommandLine, RootHelpNamesTheStoreTheCodeUses) {
  // rootfs/image_store.cc: $PADDOCK_ROOT, $XDG_DATA_HOME/paddock, then by user.
  for (const char* command : {"run", "images", "pull", "import", "rmi", "gc"}) {
    auto request = parse({command, "--help"});
    ASSERT_TRUE(request.ok()) << command;
    std::string help = std::get<InfoRequest>(*request).text;
    // Help wraps long descriptions: compare the words only.
    std::string words;
    for (char c : help) {
      if (c == '\n' || c == ' ') {
        if (!words.empty() && words.back() != ' ') words += ' ';
      } else {
        words += c;
      }
    }
    for (const char* part : {"$PADDOCK_ROOT", "$XDG_DATA_HOME/paddock", "/var/lib/paddock as root",
                             "~/.local/share/paddock"}) {
      EXPECT_NE(words.find(part), std::string::npos) << command << ": " << part << " in\n" << help;
    }
    EXPECT_EQ(occurrences(help, "Usage: paddock " + std::string(command)), 1u) << help;
  }
}

TEST(CommandLine, Doctor) {
  auto request = parse({"doctor", "--json"});
  ASSERT_TRUE(request.ok());
  ASSERT_TRUE(std::holds_alternative<DoctorRequest>(*request));
  EXPECT_TRUE(std::get<DoctorRequest>(*request).json);
}

TEST(CommandLine, ScreeningFlagOverridesThePolicyMode) {
  RunRequest request =
      run_request({"run", "--lang", "python", "--screening", "enforce", "--code", "x"});
  EXPECT_EQ(request.screening_mode, "enforce");
  EXPECT_FALSE(run_request({"run", "--lang", "python", "--code", "x"}).screening_mode);
  EXPECT_NE(error_of({"run", "--lang", "python", "--screening", "block", "--code", "x"})
                .find("--screening 'block' is not valid; use enforce, warn or off"),
            std::string::npos);
  EXPECT_NE(error_of({"run", "--screening", "off", "--", "true"}).find("--screening needs --lang"),
            std::string::npos);
}

}  // namespace
}  // namespace paddock::cli::command_line_test
