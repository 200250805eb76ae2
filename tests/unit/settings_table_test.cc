// The settings table (config/table.h) is where the flags, variables, defaults and --help of
// `paddock run` and `paddock mcp` come from; docs/cli.md and docs/mcp.md show the same rows, one
// table line each, with the same defaults, and the rows must be well formed.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "cli/command_line.h"
#include "config/resolve.h"
#include "config/table.h"

namespace paddock::config::settings_table_test {
namespace {

struct DocsLine {
  std::string text;
  std::string first_column;
  std::string last_column;  // without backticks, trimmed
};

std::string trimmed(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
  auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The lines of the settings table in `file`, under the heading `section`.
std::vector<DocsLine> documented_lines(const std::string& file, const std::string& section) {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/" + file);
  EXPECT_TRUE(in) << file;
  std::vector<DocsLine> lines;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) in_section = line == section;
    if (!in_section || !line.starts_with("| `")) continue;
    // Columns split at " | ", so that `none\|user` inside one stays whole.
    std::string last = line.substr(0, line.size() - 1);  // the closing '|'
    last = last.substr(last.rfind(" | ") + 3);
    lines.push_back({line, line.substr(0, line.find(" | ")), trimmed(last)});
  }
  return lines;
}

struct Docs {
  Command command;
  const char* file;
  const char* section;
};

const Docs kDocs[] = {{kRun, "cli.md", "## Running code"},
                      {kMcp, "mcp.md", "## Configuring the server"},
                      {kWrap, "wrap.md", "## Settings"}};

std::vector<std::string> flags_in(const std::string& column) {
  static const std::regex kFlag("`(--[a-z-]+)");
  std::vector<std::string> flags;
  for (std::sregex_iterator match(column.begin(), column.end(), kFlag), end; match != end;
       ++match) {
    flags.push_back((*match)[1].str());
  }
  return flags;
}

TEST(SettingsTable, EachDocsTableLineIsOneRowWithItsVariablesAndDefault) {
  for (const auto& docs : kDocs) {
    auto lines = documented_lines(docs.file, docs.section);
    ASSERT_FALSE(lines.empty()) << docs.file;
    std::set<std::string> seen;
    for (const auto& line : lines) {
      auto flags = flags_in(line.first_column);
      ASSERT_EQ(flags.size(), 1u) << docs.file << ": one flag a line: " << line.text;
      const Setting* row = find_setting(flags[0], docs.command);
      ASSERT_NE(row, nullptr) << docs.file << " names " << flags[0] << ", which is no row of it";
      EXPECT_TRUE(seen.insert(row->flag).second) << docs.file << " lists twice: " << row->flag;
      EXPECT_EQ(line.last_column, row->default_for(docs.command)) << docs.file << ": " << line.text;
      for (const auto& variable : row->variables_of(docs.command)) {
        EXPECT_NE(line.text.find("`" + variable), std::string::npos)
            << docs.file << ": " << variable << " missing from " << line.text;
      }
    }
    for (const auto& row : settings_table()) {
      if (!row.takes(docs.command)) continue;
      if (row.flag.empty()) {
        // A variable alone (CONTAINER_IMAGE): named on the line of the row it feeds.
        bool named = false;
        for (const auto& line : lines)
          named |= line.text.find("`" + row.variables[0]) != std::string::npos;
        EXPECT_TRUE(named) << docs.file << ": " << row.variables[0];
        continue;
      }
      EXPECT_EQ(seen.count(row.flag), 1u) << docs.file << " lacks " << row.flag;
    }
  }
}

TEST(SettingsTable, TheDocsNameNoVariableACommandDoesNotRead) {
  static const std::regex kVariable(
      "`(PADDOCK_[A-Z_]+|CONTAINER_IMAGE|CONTAINER_LANGUAGE|BACKEND)[`=]");
  for (const auto& docs : kDocs) {
    std::set<std::string> read;
    for (const auto& row : settings_table()) {
      if (!row.takes(docs.command)) continue;
      for (const auto& variable : row.variables_of(docs.command)) read.insert(variable);
    }
    for (const auto& line : documented_lines(docs.file, docs.section)) {
      for (std::sregex_iterator match(line.text.begin(), line.text.end(), kVariable), end;
           match != end; ++match) {
        EXPECT_EQ(read.count((*match)[1].str()), 1u) << docs.file << ": " << line.text;
      }
    }
  }
}

TEST(SettingsTable, RowsAreWellFormedAndDistinct) {
  for (Command command : {kRun, kMcp, kWrap}) {
    std::set<std::string> flags, variables;
    for (const auto& setting : settings_table()) {
      if (!setting.takes(command)) continue;
      EXPECT_TRUE(setting.set) << setting.flag;
      // A server is started from JSON: every one of its settings has a variable.
      if (command == kMcp) {
        EXPECT_FALSE(setting.variables_of(command).empty()) << setting.flag;
      }
      if (!setting.flag.empty()) {
        EXPECT_TRUE(setting.flag.starts_with("--")) << setting.flag;
        EXPECT_TRUE(flags.insert(setting.flag).second) << setting.flag;
        EXPECT_FALSE(setting.help.empty()) << setting.flag;
        EXPECT_FALSE(setting.type.empty()) << setting.flag;
        // The default is the row's, never written again in its help.
        EXPECT_EQ(setting.help.find("default"), std::string::npos) << setting.flag;
      }
      for (const auto& variable : setting.variables_of(command)) {
        EXPECT_TRUE(variables.insert(variable).second) << variable;
      }
    }
  }
}

TEST(SettingsTable, EverySettingBothCommandsCanUseIsInBoth) {
  for (const char* flag :
       {"--require-cgroups", "--memory", "--cpu-time", "--work-size", "--network", "--allow-host",
        "--secret", "--backend", "--namespace", "--pod-start-timeout", "--kube-seccomp-profile",
        "--install-network", "--seccomp-profile"}) {
    EXPECT_NE(find_setting(flag, kRun), nullptr) << flag;
    EXPECT_NE(find_setting(flag, kMcp), nullptr) << flag;
    EXPECT_EQ(find_setting(flag, kRun), find_setting(flag, kMcp)) << flag << ": one row";
  }
}

TEST(SettingsTable, HelpShowsEveryFlagWithItsDefaultAndVariable) {
  for (const char* command : {"run", "mcp", "wrap"}) {
    const char* argv[] = {"paddock", command, "--help"};
    auto request = cli::parse_command_line(3, argv);
    ASSERT_TRUE(request) << request.error().message;
    // Help wraps long lines: compare the words only.
    std::string help;
    for (char c : std::get<cli::InfoRequest>(*request).text) {
      if (c == '\n' || c == ' ') {
        if (!help.empty() && help.back() != ' ') help += ' ';
      } else {
        help += c;
      }
    }
    Command which = std::string(command) == "run"   ? kRun
                    : std::string(command) == "mcp" ? kMcp
                                                    : kWrap;
    for (const auto& setting : settings_table()) {
      if (setting.flag.empty() || !setting.takes(which)) continue;
      EXPECT_NE(help.find(setting.flag + " "), std::string::npos) << command << setting.flag;
      if (!setting.default_for(which).empty()) {
        EXPECT_NE(help.find("(default " + setting.default_for(which) + ")"), std::string::npos)
            << command << " " << setting.flag;
      }
      for (const auto& variable : setting.variables_of(which)) {
        EXPECT_NE(help.find(variable), std::string::npos) << command << " " << setting.flag;
      }
    }
  }
}

Environment environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

// A command reads only the variables its rows name for it: a server's PADDOCK_MEMORY must not
// change what `paddock run` does in the same shell, while --backend's variables serve both.
TEST(SettingsTable, EachCommandReadsOnlyItsOwnVariables) {
  auto env = environment(
      {{"PADDOCK_MEMORY", "1g"}, {"PADDOCK_BACKEND", "podman"}, {"PADDOCK_REQUIRE_CGROUPS", "on"}});
  auto run = resolve(kRun, {}, env);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_FALSE(run->server.limits.memory_bytes);
  EXPECT_FALSE(run->server.require_cgroups);
  EXPECT_EQ(run->server.backend, "podman");
  auto mcp = resolve(kMcp, {}, env);
  ASSERT_TRUE(mcp) << mcp.error().message;
  EXPECT_EQ(mcp->server.limits.memory_bytes, 1ull << 30);
  EXPECT_TRUE(mcp->server.require_cgroups);
  // The kubernetes backend's variables serve both, as KUBECONFIG does.
  auto kube = resolve(kRun, {}, environment({{"PADDOCK_POD_START_TIMEOUT", "5m"}}));
  ASSERT_TRUE(kube) << kube.error().message;
  EXPECT_EQ(kube->server.pod_start_seconds, 300);
  EXPECT_FALSE(resolve(kRun, {}, environment({{"PADDOCK_SECCOMP_PROFILE", "/x.json"}}))
                   ->server.seccomp_profile);
  auto flagged = resolve(kRun, {{"--require-cgroups", {"on"}}, {"--memory", {"2g"}}}, env);
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_TRUE(flagged->server.require_cgroups);
  EXPECT_EQ(flagged->server.limits.memory_bytes, 2ull << 30);
}

// The checks no single row can make hold for both commands, in the same words.
TEST(SettingsTable, CrossChecksAreTheSameForBothCommands) {
  for (Command command : {kRun, kMcp}) {
    auto hosts = resolve(command, {{"--allow-host", {"pypi.org"}}, {"--network", {"user"}}},
                         environment({}));
    ASSERT_FALSE(hosts);
    EXPECT_NE(hosts.error().message.find("--allow-host is the programs' only network: it cannot "
                                         "be combined with --network user"),
              std::string::npos)
        << hosts.error().message;
    auto secret = resolve(command, {{"--secret", {"K=V@api.test"}}, {"--backend", {"docker"}}},
                          environment({}));
    ASSERT_FALSE(secret);
    EXPECT_NE(secret.error().message.find("--secret needs the native backend"), std::string::npos);
    // A pod cannot load a file of this host: refused, never silently the runtime's instead.
    auto profile =
        resolve(command, {{"--seccomp-profile", {"/x.json"}}, {"--backend", {"kubernetes"}}},
                environment({}));
    ASSERT_FALSE(profile);
    EXPECT_NE(profile.error().message.find("--seccomp-profile is a file on this host, which a "
                                           "Kubernetes pod cannot load"),
              std::string::npos)
        << profile.error().message;
  }
  // Only a server has a longest timeout.
  EXPECT_TRUE(resolve(kRun, {{"--timeout", {"10m"}}}, environment({})));
  EXPECT_FALSE(resolve(kMcp, {{"--timeout", {"10m"}}}, environment({})));
}

}  // namespace
}  // namespace paddock::config::settings_table_test
