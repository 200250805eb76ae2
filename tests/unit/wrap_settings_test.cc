// `paddock wrap`'s settings: a profile's values under the flags, from the one table, and the
// package a launcher downloads.

#include <gtest/gtest.h>

#include "app/package_launch.h"
#include "config/resolve.h"

namespace paddock::wrap_settings_test {
namespace {

config::Environment environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(WrapSettings, FlagsReplaceAProfilesValueAndAddToItsLists) {
  std::vector<config::Preset> presets = {{"--memory", "256m", "p.json: limits.memory"},
                                         {"--allow-host", "api.example.org", "p.json: hosts[0]"},
                                         {"--deny-tool", "write_file", "p.json: deny_tools[0]"}};
  config::FlagValues flags = {{"--memory", {"1g"}},
                              {"--allow-host", {"other.example.org"}},
                              {"--deny-tool", {"delete_file"}}};
  auto options = config::resolve(config::kWrap, flags, environment({}), presets);
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->server.limits.memory_bytes, 1ull << 30);
  EXPECT_EQ(options->server.allowed_hosts,
            (std::vector<std::string>{"api.example.org", "other.example.org"}));
  EXPECT_EQ(options->wrap.deny_tools, (std::vector<std::string>{"write_file", "delete_file"}));
  auto profile_only = config::resolve(config::kWrap, {}, environment({}), presets);
  ASSERT_TRUE(profile_only);
  EXPECT_EQ(profile_only->server.limits.memory_bytes, 256ull << 20);
}

TEST(WrapSettings, AProfilesBadValueNamesItsFileAndKey) {
  auto options = config::resolve(config::kWrap, {}, environment({}),
                                 {{"--memory", "lots",
                                   "/home/me/.config/paddock/servers/x.json: "
                                   "limits.memory"}});
  ASSERT_FALSE(options);
  EXPECT_NE(options.error().message.find("x.json: limits.memory"), std::string::npos)
      << options.error().message;
  EXPECT_NE(options.error().message.find("not a size"), std::string::npos);
}

// A server's settings come from its client's config line: a PADDOCK_MEMORY meant for
// `paddock mcp` in the same environment changes nothing.
TEST(WrapSettings, WrapReadsNoVariable) {
  auto options = config::resolve(
      config::kWrap, {}, environment({{"PADDOCK_MEMORY", "2g"}, {"PADDOCK_ALLOW_HOSTS", "a.org"}}));
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_FALSE(options->server.limits.memory_bytes);
  EXPECT_TRUE(options->server.allowed_hosts.empty());
}

TEST(WrapSettings, RunAndMcpDoNotTakeWrapsOwnFlags) {
  auto run = config::resolve(config::kRun, {{"--deny-tool", {"x"}}}, environment({}));
  ASSERT_TRUE(run);
  EXPECT_TRUE(run->wrap.deny_tools.empty());
  auto bad = config::resolve(config::kWrap, {{"--deny-tool", {"has space"}}}, environment({}));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--deny-tool"), std::string::npos);
}

TEST(PackageLaunch, NpxWithYesFetchesItsPackageOnce) {
  auto launch =
      app::package_launch({"npx", "-y", "@modelcontextprotocol/server-filesystem", "/work/notes"},
                          std::nullopt, std::nullopt);
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->spec, "@modelcontextprotocol/server-filesystem");
  EXPECT_EQ(launch->registry_host, "registry.npmjs.org");
  EXPECT_EQ(launch->command,
            (std::vector<std::string>{"npx", "-y", "@modelcontextprotocol/server-filesystem",
                                      "/work/notes"}));
  EXPECT_EQ(launch->install_command[0], "npm");
  EXPECT_NE(std::find(launch->install_command.begin(), launch->install_command.end(),
                      "--package=@modelcontextprotocol/server-filesystem"),
            launch->install_command.end());
  EXPECT_NE(std::find(launch->env.begin(), launch->env.end(), "npm_config_offline=true"),
            launch->env.end());
  EXPECT_EQ(app::default_server_name(launch->command, launch), "server-filesystem");
}

TEST(PackageLaunch, AProfilesVersionPinsThePackage) {
  auto launch = app::package_launch({"/usr/bin/npx", "--yes", "server-memory@latest"},
                                    std::string("server-memory"), std::string("1.2.3"));
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->spec, "server-memory@1.2.3");
  EXPECT_EQ(launch->command.back(), "server-memory@1.2.3");
  auto scoped = app::package_launch({"npx", "-y", "@scope/pkg@2"}, std::string("@scope/pkg"),
                                    std::string("3.0.0"));
  ASSERT_TRUE(scoped);
  EXPECT_EQ(scoped->spec, "@scope/pkg@3.0.0");
}

TEST(PackageLaunch, OtherCommandsDownloadNothing) {
  EXPECT_FALSE(app::package_launch({"npx", "server-memory"}, std::nullopt, std::nullopt))
      << "without --yes npx asks before it downloads";
  EXPECT_FALSE(app::package_launch({"python3", "-m", "server"}, std::nullopt, std::nullopt));
  EXPECT_FALSE(app::package_launch({"npx", "-y"}, std::nullopt, std::nullopt));
  EXPECT_EQ(app::default_server_name({"/usr/bin/python3", "-m", "x"}, std::nullopt), "python3");
  EXPECT_EQ(app::default_server_name({"../..//"}, std::nullopt), "server");
}

}  // namespace
}  // namespace paddock::wrap_settings_test
