// The settings table (cli/mcp_settings.h) is where `paddock mcp`'s flags, variables and --help
// come from; docs/mcp.md's table must show the same rows, and the rows must be well formed.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/command_line.h"
#include "cli/mcp_settings.h"

namespace paddock::cli {
namespace {

// The lines of docs/mcp.md's settings table, under "## Configuring the server".
std::vector<std::string> documented_rows() {
  std::ifstream file(std::string(PADDOCK_SOURCE_DIR) + "/docs/mcp.md");
  EXPECT_TRUE(file) << "docs/mcp.md";
  std::vector<std::string> rows;
  bool in_section = false;
  for (std::string line; std::getline(file, line);) {
    if (line.starts_with("## ")) in_section = line == "## Configuring the server";
    if (in_section && line.starts_with("| `")) rows.push_back(line);
  }
  return rows;
}

bool documented(const std::vector<std::string>& rows, const std::string& name) {
  for (const auto& row : rows) {
    if (row.find("`" + name) != std::string::npos) return true;
  }
  return false;
}

TEST(SettingsTable, EveryFlagAndVariableIsInTheDocsTable) {
  auto rows = documented_rows();
  ASSERT_FALSE(rows.empty());
  for (const auto& setting : mcp_settings()) {
    if (!setting.flag.empty()) {
      EXPECT_TRUE(documented(rows, setting.flag)) << setting.flag;
    }
    for (const auto& variable : setting.variables) {
      EXPECT_TRUE(documented(rows, variable)) << variable;
    }
  }
}

TEST(SettingsTable, TheDocsTableNamesNoFlagThatIsNotARow) {
  std::set<std::string> flags;
  for (const auto& setting : mcp_settings()) flags.insert(setting.flag);
  const std::regex flag_pattern("`(--[a-z-]+)");
  for (const auto& row : documented_rows()) {
    std::string first_column = row.substr(0, row.find('|', 1));
    for (std::sregex_iterator match(first_column.begin(), first_column.end(), flag_pattern), end;
         match != end; ++match) {
      EXPECT_EQ(flags.count((*match)[1].str()), 1u) << (*match)[1].str() << " in " << row;
    }
  }
}

TEST(SettingsTable, RowsAreWellFormedAndDistinct) {
  std::set<std::string> flags, variables;
  for (const auto& setting : mcp_settings()) {
    EXPECT_TRUE(setting.set) << setting.flag;
    EXPECT_FALSE(setting.variables.empty()) << setting.flag;
    if (!setting.flag.empty()) {
      EXPECT_TRUE(setting.flag.starts_with("--")) << setting.flag;
      EXPECT_TRUE(flags.insert(setting.flag).second) << setting.flag;
      EXPECT_FALSE(setting.help.empty()) << setting.flag;
      EXPECT_FALSE(setting.type.empty()) << setting.flag;
    }
    for (const auto& variable : setting.variables) {
      EXPECT_TRUE(variables.insert(variable).second) << variable;
    }
  }
}

TEST(SettingsTable, HelpShowsEveryFlagWithItsVariable) {
  const char* argv[] = {"paddock", "mcp", "--help"};
  auto request = parse_command_line(3, argv);
  ASSERT_TRUE(request) << request.error().message;
  const std::string& help = std::get<InfoRequest>(*request).text;
  for (const auto& setting : mcp_settings()) {
    if (setting.flag.empty()) continue;
    EXPECT_NE(help.find(setting.flag), std::string::npos) << setting.flag;
    EXPECT_NE(help.find(setting.variables.front()), std::string::npos) << setting.flag;
  }
}

}  // namespace
}  // namespace paddock::cli
