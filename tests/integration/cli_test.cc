// The `paddock` binary as a user meets it: exit statuses, one-line errors, JSON.

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::cli_test {
namespace {

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Bad input: exit 125 and exactly one line on stderr that names what was wrong.
void expect_usage_error(const std::vector<std::string>& args, const std::string& names) {
  CliResult result = run_cli(args);
  EXPECT_EQ(result.exit_status, 125) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_EQ(result.err.rfind("paddock: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(names), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
}

TEST(Cli, HelloWorld) {
  CliResult result = run_cli({"run", "--", "echo", "hello", "world"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "hello world\n");
  EXPECT_EQ(result.err, "");
}

TEST(Cli, ExitStatusesFollowTheProgram) {
  EXPECT_EQ(run_cli({"run", "--", "sh", "-c", "exit 7"}).exit_status, 7);
  EXPECT_EQ(run_cli({"run", "--", "sh", "-c", "kill -TERM $$"}).exit_status, 128 + 15);
  CliResult timeout = run_cli({"run", "--timeout", "0.5", "--", "sleep", "30"});
  EXPECT_EQ(timeout.exit_status, 124);
  EXPECT_NE(timeout.err.find("timed out"), std::string::npos);
  EXPECT_EQ(run_cli({"run", "--", "no-such-command-paddock"}).exit_status, 127);
}

TEST(Cli, BadInputIsOneClearLine) {
  expect_usage_error({"run", "--no-such-flag", "--", "true"}, "--no-such-flag");
  expect_usage_error({"run"}, "no command");
  expect_usage_error({"run", "--"}, "no command");
  expect_usage_error({"run", "--timeout", "soon", "--", "true"}, "--timeout");
  expect_usage_error({"run", "--memory", "lots", "--", "true"}, "--memory");
  expect_usage_error({"run", "--network", "bridge", "--", "true"}, "--network");
  expect_usage_error({"run", "--workdir", "/no/such/dir", "--", "true"}, "/no/such/dir");
  expect_usage_error({"run", "--workdir", "relative", "--", "true"}, "relative");
  expect_usage_error({"run", "--stdin", "/no/such/file", "--", "true"}, "/no/such/file");
  expect_usage_error({"run", "--ro-bind", "/no/such/path:/x", "--", "true"}, "/no/such/path");
  expect_usage_error({"run", "--ro-bind", "/usr:/proc/x", "--", "true"}, "/proc/x");
  expect_usage_error({"run", "--env", "NOEQUALS", "--", "true"}, "NOEQUALS");
  expect_usage_error({"frobnicate"}, "frobnicate");
  expect_usage_error(
      {"run", "--backend", "lxc", "--", "true"},
      "--backend 'lxc' is not a backend; use e.g. native, docker, podman or kubernetes");
}

TEST(Cli, MalformedSeccompProfileNamesFileAndPointer) {
  std::string path =
      ::testing::TempDir() + "/paddock-bad-profile-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"defaultAction": "SCMP_ACT_ERRNO",
                            "syscalls": [{"names": ["read"], "action": "SCMP_ACT_NOPE"}]})";
  expect_usage_error({"run", "--seccomp-profile", path, "--", "true"},
                     path + ": /syscalls/0/action");
  std::ofstream(path) << "{not json";
  expect_usage_error({"run", "--seccomp-profile", path, "--", "true"}, "not valid JSON");
  expect_usage_error({"run", "--seccomp-profile", "/no/such/profile.json", "--", "true"},
                     "/no/such/profile.json");
  std::remove(path.c_str());
}

TEST(Cli, JsonResultHasEveryField) {
  CliResult result = run_cli({"run", "--json", "--", "sh", "-c", "echo out; echo err >&2; exit 2"});
  EXPECT_EQ(result.exit_status, 2);
  nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["exit_code"], 2);
  EXPECT_EQ(json["signal"], 0);
  EXPECT_EQ(json["timed_out"], false);
  EXPECT_EQ(json["stdout"], "out\n");
  EXPECT_EQ(json["stderr"], "err\n");
  EXPECT_EQ(json["stdout_truncated"], false);
  EXPECT_EQ(json["stderr_truncated"], false);
  for (const char* key : {"duration_ms", "cpu_ms", "max_rss_kb"}) {
    EXPECT_TRUE(json[key].is_number_integer()) << key;
  }
  EXPECT_GT(json["max_rss_kb"].get<int>(), 0);
  EXPECT_EQ(json["limits_mode"], "rlimit");
  EXPECT_EQ(json["isolation"]["seccomp"], true);
  EXPECT_EQ(json["isolation"]["no_new_privs"], true);
  EXPECT_EQ(json["isolation"]["network"], "none");
  EXPECT_EQ(json["isolation"]["namespaces"].size(), 7u);
}

TEST(Cli, JsonSurvivesBinaryOutput) {
  CliResult result = run_cli({"run", "--json", "--", "sh", "-c", "printf '\\377\\376ok'"});
  nlohmann::json json = nlohmann::json::parse(result.out);  // replaced, not rejected
  EXPECT_NE(json["stdout"].get<std::string>().find("ok"), std::string::npos);
}

TEST(Cli, StdinOptions) {
  EXPECT_EQ(run_cli({"run", "--stdin", "-", "--", "cat"}, "piped\n").out, "piped\n");
  EXPECT_EQ(run_cli({"run", "--", "cat"}, "not given to the sandbox\n").out, "");
}

TEST(Cli, EnvAndWorkdirFlags) {
  CliResult result = run_cli({"run", "--env", "A=1", "--env", "B=two words", "--workdir", "/tmp",
                              "--", "sh", "-c", "echo $A $B; pwd"});
  EXPECT_EQ(result.out, "1 two words\n/tmp\n");
}

TEST(Cli, DoctorReportsTheHost) {
  CliResult text = run_cli({"doctor"});
  EXPECT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find("user namespaces"), std::string::npos);
  CliResult json_run = run_cli({"doctor", "--json"});
  nlohmann::json json = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(json["user_namespaces"]["available"], true);
  EXPECT_EQ(json["seccomp"]["available"], true);
  EXPECT_TRUE(json["cgroup_v2_delegated"]["available"].is_boolean());
  EXPECT_TRUE(json["overlayfs_in_user_namespace"]["available"].is_boolean());
  EXPECT_EQ(json["will_use"]["limits_mode"], "rlimit");
  EXPECT_EQ(json["will_use"]["not_enforced"], nlohmann::json({"memory", "cpus"}));
  EXPECT_NE(text.out.find("not enforced for the sandbox as a whole: memory, cpus"),
            std::string::npos)
      << text.out;
  // The mapping and the unenforced totals doctor announces are those a run reports.
  nlohmann::json run = nlohmann::json::parse(run_cli({"run", "--json", "--", "true"}).out);
  EXPECT_EQ(json["will_use"]["id_mapping"], run["isolation"]["id_mapping"]);
  EXPECT_EQ(json["will_use"]["not_enforced"], run["isolation"]["not_enforced"]);
  EXPECT_EQ(json["will_use"]["id_mapping"] == "root", geteuid() == 0);
}

// Issue 55 item 3: on a root where one language's toolchain is missing (ruby's program hidden
// behind /dev/null in a mount namespace of the test's own), paddock doctor names it with the
// package and the one apt-get line, and the other languages read ready; the server logs the same
// once at start, lists ruby as unavailable with that reason, and refuses a ruby call in one line.
TEST(Cli, AMissingToolchainIsNamedByDoctorAndTheServerWithItsPackage) {
  // Runs what follows it with /usr/bin/ruby's file hidden behind /dev/null.
  const std::vector<std::string> hiding_ruby = {
      "/usr/bin/unshare",
      "--user",
      "--map-root-user",
      "--mount",
      "/bin/sh",
      "-c",
      "mount --bind /dev/null \"$(readlink -f /usr/bin/ruby)\" && exec \"$@\"",
      "sh",
      paddock_binary()};
  auto without_ruby = [&](std::vector<std::string> args) {
    args.insert(args.begin(), hiding_ruby.begin(), hiding_ruby.end());
    return run_program(args);
  };
  CliResult doctor = without_ruby({"doctor"});
  EXPECT_EQ(doctor.exit_status, 0) << doctor.err;
  auto line_of = [](const std::string& text, const std::string& start) {
    auto at = text.find("\n  " + start + " ");
    return at == std::string::npos ? "" : text.substr(at + 3, text.find('\n', at + 1) - at - 3);
  };
  EXPECT_NE(line_of(doctor.out, "ruby").find("missing ruby (sudo apt-get install ruby)"),
            std::string::npos)
      << doctor.out;
  for (const char* other : {"python", "javascript", "r", "go", "java", "c", "cpp", "bash"}) {
    EXPECT_NE(line_of(doctor.out, other).find("ready"), std::string::npos) << other << ":\n"
                                                                           << doctor.out;
  }
  nlohmann::json report = nlohmann::json::parse(without_ruby({"doctor", "--json"}).out);
  EXPECT_EQ(report["languages"]["ruby"]["runs"], false);
  EXPECT_EQ(report["languages"]["ruby"]["missing"]["run"], nlohmann::json({"ruby"}));
  EXPECT_EQ(report["languages"]["python"]["runs"], true);
  // The same on an unchanged root: ruby is there.
  nlohmann::json whole = nlohmann::json::parse(run_cli({"doctor", "--json"}).out);
  EXPECT_EQ(whole["languages"]["ruby"]["runs"], true) << whole["languages"].dump();

  // The server in the same kind of root, driven as a client drives it (stdin open until the
  // answers came: a server whose input ends cancels what is in flight).
  TempFolder logs("missing-toolchain");
  McpProcess::Command command;
  command.argv = hiding_ruby;
  command.argv.insert(command.argv.end(), {"mcp", "--warm", "0", "--state-dir", "none"});
  command.stderr_path = logs / "stderr";
  McpProcess server(command);
  server.request(1, "initialize",
                 {{"protocolVersion", "2025-06-18"},
                  {"capabilities", nlohmann::json::object()},
                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  server.wait_for(1);
  server.call(2, "get_supported_languages", nlohmann::json::object());
  nlohmann::json listed = server.wait_for(2);
  server.call(3, "execute_code", {{"language", "ruby"}, {"code", "puts 1"}});
  nlohmann::json refused = server.wait_for(3);
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(60)), 0);
  std::string logged = read_file(logs / "stderr");
  const std::string missing = "language ruby: missing ruby (sudo apt-get install ruby)";
  auto first = logged.find(missing);
  EXPECT_NE(first, std::string::npos) << logged;
  EXPECT_EQ(logged.find(missing, first + 1), std::string::npos) << logged;
  bool ruby_listed = false;
  for (const auto& language : listed["result"]["structuredContent"]["details"]) {
    bool ruby = language["name"] == "ruby";
    ruby_listed = ruby_listed || ruby;
    EXPECT_EQ(language["available"], !ruby) << language.dump();
    if (ruby) {
      EXPECT_NE(language.value("unavailable", "").find("sudo apt-get install ruby"),
                std::string::npos)
          << language.dump();
    }
  }
  EXPECT_TRUE(ruby_listed) << listed.dump();
  EXPECT_TRUE(refused["result"].value("isError", false)) << refused.dump();
  std::string said = refused["result"]["content"][0].value("text", "");
  EXPECT_NE(said.find("ruby is not installed on this machine"), std::string::npos) << said;
  EXPECT_EQ(said.substr(0, said.find_last_not_of('\n') + 1).find('\n'), std::string::npos)
      << said;  // one line
}

// Started with no_new_privs (a systemd unit's NoNewPrivileges=, another sandbox), paddock cannot
// use the setuid newuidmap: it maps the caller's own id, as for a user without subordinate ids,
// instead of failing in newuidmap; doctor says so.
TEST(Cli, UnderNoNewPrivsARunMapsTheCallersOwnIdAndDoctorSaysWhy) {
  auto without_new_privs = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/setpriv", "--no-new-privs", paddock_binary()});
    return run_program(args);
  };
  CliResult run = without_new_privs({"run", "--json", "--", "true"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const char* expected = geteuid() == 0 ? "root" : "self";
  EXPECT_EQ(nlohmann::json::parse(run.out)["isolation"]["id_mapping"], expected) << run.out;
  CliResult doctor = without_new_privs({"doctor", "--json"});
  nlohmann::json report = nlohmann::json::parse(doctor.out);
  EXPECT_EQ(report["will_use"]["id_mapping"], expected);
  if (geteuid() != 0) {
    EXPECT_NE(report["id_helpers"].dump().find("no_new_privs"), std::string::npos)
        << report["id_helpers"].dump();
  }
}

// `paddock mcp` is started by a client, which shows its stderr and exit status: a flag the server
// does not know is a configuration error like any other of the server's (docs/mcp.md): status 2.
TEST(Cli, AnUnknownServerFlagExitsTwoWithOneLine) {
  CliResult result = run_cli({"mcp", "--no-such-server-flag"});
  EXPECT_EQ(result.exit_status, 2) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("--no-such-server-flag"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
}

// --output-limit keeps a stream's start and its end, and its help says so.
TEST(Cli, OutputLimitKeepsTheStartAndTheEndAsItsHelpSays) {
  CliResult help = run_cli({"run", "--help"});
  auto at = help.out.find("--output-limit");
  ASSERT_NE(at, std::string::npos) << help.out;
  std::string entry = help.out.substr(at, help.out.find("\n  -", at + 1) - at);
  EXPECT_EQ(entry.find("the rest is dropped"), std::string::npos) << entry;
  EXPECT_NE(entry.find("start"), std::string::npos) << entry;
  EXPECT_NE(entry.find("end"), std::string::npos) << entry;
  CliResult run =
      run_cli({"run", "--json", "--output-limit", "4k", "--", "sh", "-c", "seq 1 20000"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  std::string kept = nlohmann::json::parse(run.out)["stdout"].get<std::string>();
  EXPECT_EQ(kept.rfind("1\n2\n3\n", 0), 0u) << kept.substr(0, 100);
  EXPECT_NE(kept.find("\n19999\n20000\n"), std::string::npos) << kept.substr(kept.size() - 100);
}

// Without --json a figure has nowhere to go: one line says it was made and how to get it.
TEST(Cli, FiguresMadeWithoutJsonAreNamedOnStderr) {
  CliResult run = run_cli({"run", "--lang", "python", "--code",
                           "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n"
                           "plt.plot([2, 1])\nplt.show()\nprint('drawn')"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_EQ(run.out, "drawn\n");
  EXPECT_NE(run.err.find("2 figures were made"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--json"), std::string::npos) << run.err;
  CliResult plain = run_cli({"run", "--lang", "python", "--code", "print('no figure')"});
  EXPECT_EQ(plain.err.find("figure"), std::string::npos) << plain.err;
}

// The lean paddock copied alone: what it hands to paddock-full, the server first, says so.
TEST(Cli, ALonePaddockNamesTheServerAmongWhatNeedsPaddockFull) {
  std::string directory = ::testing::TempDir() + "/paddock-lone-" + std::to_string(getpid());
  ASSERT_EQ(mkdir(directory.c_str(), 0755), 0);
  std::string lone = directory + "/paddock";
  {
    std::ifstream from(paddock_binary(), std::ios::binary);
    std::ofstream to(lone, std::ios::binary);
    to << from.rdbuf();
  }
  ASSERT_EQ(chmod(lone.c_str(), 0755), 0);
  CliResult result = run_program({lone, "mcp"});
  EXPECT_EQ(result.exit_status, 125) << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("paddock-full"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("paddock mcp"), std::string::npos) << result.err;
  std::remove(lone.c_str());
  rmdir(directory.c_str());
}

// The layout `cmake --install` and the Debian package make: PREFIX/bin/paddock with its helpers
// in PREFIX/lib/paddock. The lean paddock finds paddock-init there for a run, and paddock-full
// for doctor; neither is beside it.
TEST(Cli, AnInstalledPaddockFindsItsHelpersInLibPaddock) {
  TempFolder prefix("layout");
  ASSERT_EQ(mkdir((prefix / "bin").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((prefix / "lib").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((prefix / "lib/paddock").c_str(), 0755), 0);
  std::string built = paddock_binary().substr(0, paddock_binary().rfind('/') + 1);
  auto copy = [](const std::string& from_path, const std::string& to_path) {
    std::ifstream from(from_path, std::ios::binary);
    std::ofstream to(to_path, std::ios::binary);
    to << from.rdbuf();
    to.close();
    return chmod(to_path.c_str(), 0755) == 0 && from.good();
  };
  ASSERT_TRUE(copy(paddock_binary(), prefix / "bin/paddock"));
  ASSERT_TRUE(copy(built + "paddock-full", prefix / "lib/paddock/paddock-full"));
  ASSERT_TRUE(copy(built + "paddock-init", prefix / "lib/paddock/paddock-init"));

  CliResult run = run_program({prefix / "bin/paddock", "run", "--", "echo", "installed"});
  EXPECT_EQ(run.exit_status, 0) << run.err;
  EXPECT_EQ(run.out, "installed\n") << run.err;
  CliResult doctor = run_program({prefix / "bin/paddock", "doctor", "--json"});
  auto report = nlohmann::json::parse(doctor.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << doctor.out << doctor.err;
  EXPECT_TRUE(report.contains("user_namespaces")) << doctor.out;
}

// Code written for llm-sandbox works in /sandbox: there it is the work directory itself, so a
// file written at /sandbox/x is /work/x, and the other way round.
TEST(Cli, SandboxIsTheWorkDirectoryUnderAnotherName) {
  CliResult run = run_cli({"run", "--lang", "python", "--code",
                           "import os\nopen('/sandbox/x', 'w').write('from sandbox')\n"
                           "print(open('/work/x').read())\nopen('/work/y', 'w').write('w')\n"
                           "print(sorted(set(os.listdir('/sandbox')) & {'x', 'y'}))\n"
                           "print(os.path.realpath('/sandbox'))"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_EQ(run.out, "from sandbox\n['x', 'y']\n/work\n");
  CliResult shell = run_cli({"run", "--", "sh", "-c", "cd /sandbox && echo hi > z && cat /work/z"});
  EXPECT_EQ(shell.exit_status, 0) << shell.err;
  EXPECT_EQ(shell.out, "hi\n");
  // Nothing more is writable than before: /sandbox is the work directory, not a hole in the root.
  CliResult root = run_cli(
      {"run", "--", "sh", "-c",
       "rm /sandbox 2>/dev/null && echo removed; ln -sfn /tmp /sandbox 2>/dev/null && echo made; "
       "readlink /sandbox"});
  EXPECT_EQ(root.out, "/work\n") << root.err;
}

// Code written for llm-sandbox's images runs `python`: a sandbox on the host's root has it, the
// host's python3 under that name, in the read-only root.
TEST(Cli, PythonIsTheHostsPython3) {
  CliResult run =
      run_cli({"run", "--", "sh", "-c",
               "echo 'import sys; print(sys.version_info[0])' > /work/t.py && python /work/t.py && "
               "python -c 'print(6 * 7)' && readlink -f \"$(command -v python)\" && "
               "rm \"$(command -v python)\" 2>/dev/null || echo kept"});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_EQ(run.out.substr(0, 5), "3\n42\n") << run.out;
  EXPECT_NE(run.out.find("/usr/bin/python3"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("kept\n"), std::string::npos) << run.out;
  CliResult code = run_cli({"run", "--lang", "bash", "--code", "python -c 'print(1 + 1)'"});
  EXPECT_EQ(code.exit_status, 0) << code.err;
  EXPECT_EQ(code.out, "2\n");
}

// `paddock policy screen LANG` screens code from stdin as enforce mode would, and runs nothing.
TEST(Cli, PolicyScreenJudgesCodeWithoutRunningIt) {
  std::string marker = ::testing::TempDir() + "/paddock-screen-" + std::to_string(getpid());
  CliResult risky = run_cli({"policy", "screen", "python", "--json"},
                            "import os\nos.system('touch " + marker + "')\nprint(1)\n");
  ASSERT_EQ(risky.exit_status, 0) << risky.err;
  nlohmann::json verdict = nlohmann::json::parse(risky.out);
  EXPECT_EQ(verdict["blocked"], true) << risky.out;
  EXPECT_EQ(verdict["mode"], "enforce");
  ASSERT_EQ(verdict["findings"].size(), 1u) << risky.out;
  EXPECT_EQ(verdict["findings"][0]["rule"], "py-shell");
  EXPECT_EQ(verdict["findings"][0]["line"], 2);
  EXPECT_FALSE(verdict["findings"][0]["pattern"].get<std::string>().empty());
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the code ran";
  CliResult plain = run_cli({"policy", "screen", "python"}, "print(1)\n");
  EXPECT_EQ(plain.exit_status, 0) << plain.err;
  EXPECT_EQ(plain.out.rfind("safe:", 0), 0u) << plain.out;
  expect_usage_error({"policy", "screen"}, "needs a language");
}

TEST(Cli, HelpAndVersionExitZero) {
  CliResult help = run_cli({"run", "--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_NE(help.out.find("--timeout"), std::string::npos);
  EXPECT_EQ(run_cli({"--version"}).exit_status, 0);
}

}  // namespace
}  // namespace paddock::testing::cli_test
