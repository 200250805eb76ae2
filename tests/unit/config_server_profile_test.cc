// Server profiles of `paddock wrap` (config/server_profile.h): the built-in ones load and give
// the flags they stand for, which the settings table parses as it parses the command line; a
// user's file replaces a built-in or adds one; every bad profile is one line naming the file and
// the key, and a name is never a path.

#include "config/server_profile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/builtin_server_profiles.h"
#include "config/options.h"
#include "config/table.h"
#include "support/temp_folder.h"

namespace paddock::config::config_server_profile_test {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;  // flag, value

Settings flags_of(const ServerProfile& profile) {
  Settings settings;
  for (const auto& setting : profile.settings) settings.emplace_back(setting.flag, setting.value);
  return settings;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// The error of a profile that must not load, after checking it is one line.
std::string error_of(const core::Result<ServerProfile>& profile) {
  EXPECT_FALSE(profile.ok());
  if (profile.ok()) return "";
  const std::string& message = profile.error().message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return message;
}

std::string parse_error(const std::string& text, const std::optional<std::string>& home = "/") {
  return error_of(parse_server_profile(text, "x", "x.json", home));
}

TEST(ServerProfile, TheBuiltInOnesAreTheFourReferenceServers) {
  EXPECT_EQ(server_profile_names(std::nullopt),
            (std::vector<std::string>{"everything", "fetch", "filesystem", "memory"}));
  for (const auto& name : server_profile_names(std::nullopt)) {
    auto profile = load_server_profile(name, std::nullopt, "/root");
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.error().message;
    EXPECT_EQ(profile->name, name);
    EXPECT_TRUE(profile->builtin);
    EXPECT_EQ(profile->file, "built-in profile " + name);
    EXPECT_FALSE(profile->description.empty());
    EXPECT_TRUE(profile->kept_home) << name;
    EXPECT_FALSE(profile->version.has_value()) << name;
    for (const auto& setting : profile->settings) {
      // No network, no host folder and no secret of their own: the user widens them by flags.
      EXPECT_NE(setting.flag, "--allow-host") << name;
      EXPECT_NE(setting.flag, "--share") << name;
      EXPECT_NE(setting.flag, "--secret") << name;
      EXPECT_TRUE(setting.where.starts_with("built-in profile " + name + ": ")) << setting.where;
    }
  }
}

TEST(ServerProfile, FilesystemMapsItsLimitsToTheirFlags) {
  auto profile = load_server_profile("filesystem", std::nullopt, std::nullopt);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->runtime, "node");
  EXPECT_EQ(profile->package, "@modelcontextprotocol/server-filesystem");
  EXPECT_EQ(flags_of(*profile), (Settings{{"--memory", "512m"},
                                          {"--pids", "256"},
                                          {"--cpus", "1"},
                                          {"--file-size", "1g"},
                                          {"--tmp-size", "64m"}}));
  EXPECT_EQ(profile->settings[0].where, "built-in profile filesystem: limits.memory");
  EXPECT_EQ(profile->settings[1].where, "built-in profile filesystem: limits.pids");
}

TEST(ServerProfile, MemoryKeepsItsGraphInTheKeptHome) {
  auto profile = load_server_profile("memory", std::nullopt, std::nullopt);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->runtime, "node");
  EXPECT_EQ(profile->package, "@modelcontextprotocol/server-memory");
  EXPECT_TRUE(profile->kept_home);
  ASSERT_FALSE(profile->settings.empty());
  const ProfileSetting& env = profile->settings.back();
  EXPECT_EQ(env.flag, "--env");
  EXPECT_EQ(env.value, "MEMORY_FILE_PATH=/home/server/memory.json");
  EXPECT_EQ(env.where, "built-in profile memory: env.MEMORY_FILE_PATH");
  EXPECT_EQ(profile->settings.front().flag, "--memory");
}

TEST(ServerProfile, EverythingAndFetch) {
  auto everything = load_server_profile("everything", std::nullopt, std::nullopt);
  ASSERT_TRUE(everything.ok()) << everything.error().message;
  EXPECT_EQ(everything->runtime, "node");
  EXPECT_EQ(everything->package, "@modelcontextprotocol/server-everything");
  auto fetch = load_server_profile("fetch", std::nullopt, std::nullopt);
  ASSERT_TRUE(fetch.ok()) << fetch.error().message;
  EXPECT_EQ(fetch->runtime, "python");
  EXPECT_EQ(fetch->package, "mcp-server-fetch");
  // No host until the user names them; the description says how.
  EXPECT_NE(fetch->description.find("--allow-host"), std::string::npos);
}

// The values a profile gives are parsed by the table's own rows, as a flag's would be.
TEST(ServerProfile, TheTableParsesEveryBuiltInValue) {
  Environment env = [](const std::string&) -> std::optional<std::string> { return "value"; };
  std::size_t parsed = 0;
  for (const auto& name : server_profile_names(std::nullopt)) {
    auto profile = load_server_profile(name, std::nullopt, std::nullopt);
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    Options options;
    for (const auto& setting : profile->settings) {
      const Setting* row = find_setting(setting.flag, kMcp);
      if (row == nullptr) continue;  // --env and --deny-tool are wrap's alone
      auto set = row->set(Given(setting.value, setting.where), env, options);
      EXPECT_TRUE(set.ok()) << setting.where << ": " << set.error().message;
      ++parsed;
    }
  }
  EXPECT_GE(parsed, 16u);
}

TEST(ServerProfile, EveryKeyBecomesItsFlagInOrder) {
  testing::TempFolder home("profile-home");
  std::filesystem::create_directory(home / "notes");
  auto profile = parse_server_profile(R"({
    "$schema": "schema.json",
    "description": "all of it",
    "runtime": "python",
    "package": "some-server",
    "version": "1.2.3",
    "home": "none",
    "deny_tools": ["delete_everything"],
    "env": {"B": "2", "A": "x=y"},
    "pass_through_env": ["API_KEY"],
    "secrets": ["TOKEN=GH_TOKEN@api.github.com"],
    "hosts": ["example.org", "*.example.net"],
    "shares": ["~/notes=notes:rw", "/tmp"],
    "limits": {"timeout": "8h", "tmp_size": 1048576, "file_size": "64m", "cpu_time": 0,
               "cpus": 0.5, "pids": "100", "memory": "1g"}
  })",
                                      "all", "/etc/all.json", home.path());
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->runtime, "python");
  EXPECT_EQ(profile->package, "some-server");
  EXPECT_EQ(profile->version, "1.2.3");
  EXPECT_FALSE(profile->kept_home);
  EXPECT_FALSE(profile->builtin);
  EXPECT_EQ(flags_of(*profile), (Settings{{"--memory", "1g"},
                                          {"--pids", "100"},
                                          {"--cpus", "0.5"},
                                          {"--cpu-time", "0"},
                                          {"--file-size", "64m"},
                                          {"--tmp-size", "1048576"},
                                          {"--timeout", "8h"},
                                          {"--share", home / "notes=notes:rw"},
                                          {"--share", "/tmp"},
                                          {"--allow-host", "example.org"},
                                          {"--allow-host", "*.example.net"},
                                          {"--secret", "TOKEN=GH_TOKEN@api.github.com"},
                                          {"--pass-through-env", "API_KEY"},
                                          {"--env", "A=x=y"},
                                          {"--env", "B=2"},
                                          {"--deny-tool", "delete_everything"}}));
  std::vector<std::string> where;
  for (const auto& setting : profile->settings) where.push_back(setting.where);
  EXPECT_EQ(where[7], "/etc/all.json: shares[0]");
  EXPECT_EQ(where[10], "/etc/all.json: hosts[1]");
  EXPECT_EQ(where[13], "/etc/all.json: env.A");
  EXPECT_EQ(where[15], "/etc/all.json: deny_tools[0]");
}

TEST(ServerProfile, OnlyADescriptionIsNeeded) {
  auto profile = parse_server_profile(R"({"description": "a local binary"})", "x", "x.json", "/");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->runtime, "");
  EXPECT_FALSE(profile->package.has_value());
  EXPECT_TRUE(profile->kept_home);
  EXPECT_TRUE(profile->settings.empty());
}

TEST(ServerProfile, AUsersFileReplacesABuiltInAndAddsOthers) {
  testing::TempFolder dir("profiles");
  write_file(dir / "filesystem.json", R"({"description": "mine", "hosts": ["example.org"]})");
  write_file(dir / "mine.json", R"({"description": "my own", "limits": {"pids": 64}})");
  write_file(dir / "schema.json", "{}");  // an editor's copy of the schema
  write_file(dir / "notes.txt", "not a profile");
  write_file(dir / "not a name.json", "{}");
  auto filesystem = load_server_profile("filesystem", dir.path(), std::nullopt);
  ASSERT_TRUE(filesystem.ok()) << filesystem.error().message;
  EXPECT_FALSE(filesystem->builtin);
  EXPECT_EQ(filesystem->file, dir / "filesystem.json");
  EXPECT_EQ(filesystem->description, "mine");
  // Replaced whole: none of the built-in one's limits are left.
  EXPECT_EQ(flags_of(*filesystem), (Settings{{"--allow-host", "example.org"}}));
  EXPECT_EQ(filesystem->settings[0].where, dir / "filesystem.json: hosts[0]");
  auto mine = load_server_profile("mine", dir.path(), std::nullopt);
  ASSERT_TRUE(mine.ok()) << mine.error().message;
  EXPECT_EQ(flags_of(*mine), (Settings{{"--pids", "64"}}));
  auto memory = load_server_profile("memory", dir.path(), std::nullopt);
  ASSERT_TRUE(memory.ok()) << memory.error().message;
  EXPECT_TRUE(memory->builtin);
  EXPECT_EQ(server_profile_names(dir.path()),
            (std::vector<std::string>{"everything", "fetch", "filesystem", "memory", "mine"}));
  EXPECT_NE(error_of(load_server_profile("schema", dir.path(), std::nullopt))
                .find("unknown server profile 'schema'"),
            std::string::npos);
}

TEST(ServerProfile, AMissingUserFolderLeavesTheBuiltInOnes) {
  auto profile = load_server_profile("memory", "/nonexistent/paddock/servers", std::nullopt);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_TRUE(profile->builtin);
  EXPECT_EQ(server_profile_names("/nonexistent/paddock/servers").size(), 4u);
}

TEST(ServerProfile, AnUnknownNameListsTheProfilesThereAre) {
  testing::TempFolder dir("profiles");
  write_file(dir / "mine.json", R"({"description": "my own"})");
  std::string error = error_of(load_server_profile("filesytem", dir.path(), std::nullopt));
  EXPECT_NE(error.find("unknown server profile 'filesytem'"), std::string::npos) << error;
  EXPECT_NE(error.find("everything, fetch, filesystem, memory, mine"), std::string::npos) << error;
  EXPECT_NE(error.find(dir / "filesytem.json"), std::string::npos) << error;
}

TEST(ServerProfile, ANameIsNeverAPath) {
  testing::TempFolder dir("profiles");
  std::filesystem::create_directory(dir / "sub");
  write_file(dir / "sub/x.json", R"({"description": "below"})");
  write_file(dir / "outside.json", R"({"description": "beside"})");
  for (const char* name : {"sub/x", "../outside", "..", ".", "", ".hidden", "a..b", "/etc/passwd",
                           "x y", "-rf", "name\nline"}) {
    std::string error = error_of(load_server_profile(name, dir / "sub", std::nullopt));
    EXPECT_NE(error.find("is not a profile name"), std::string::npos) << name << ": " << error;
  }
  EXPECT_EQ(error_of(load_server_profile(std::string(65, 'a'), dir.path(), std::nullopt))
                    .find("is not a profile name") != std::string::npos,
            true);
}

TEST(ServerProfile, ASymlinkOutOfTheFolderIsRefused) {
  testing::TempFolder dir("profiles");
  testing::TempFolder elsewhere("elsewhere");
  write_file(elsewhere / "x.json", R"({"description": "from elsewhere"})");
  ASSERT_EQ(symlink((elsewhere / "x.json").c_str(), (dir / "x.json").c_str()), 0);
  ASSERT_EQ(symlink("../../etc/passwd", (dir / "up.json").c_str()), 0);
  ASSERT_EQ(symlink("nowhere.json", (dir / "dangling.json").c_str()), 0);
  std::string error = error_of(load_server_profile("x", dir.path(), std::nullopt));
  EXPECT_EQ(error, dir / "x.json: is a symlink that leads out of " + dir.path() +
                       "; put the profile itself there");
  error = error_of(load_server_profile("up", dir.path(), std::nullopt));
  EXPECT_TRUE(error.starts_with(dir / "up.json: is a symlink that leads out")) << error;
  error = error_of(load_server_profile("dangling", dir.path(), std::nullopt));
  EXPECT_EQ(error, dir / "dangling.json: is a symlink to nothing; remove it");
  // A symlink to another profile of the same folder is a profile.
  write_file(dir / "real.json", R"({"description": "real"})");
  ASSERT_EQ(symlink("real.json", (dir / "alias.json").c_str()), 0);
  auto alias = load_server_profile("alias", dir.path(), std::nullopt);
  ASSERT_TRUE(alias.ok()) << alias.error().message;
  EXPECT_EQ(alias->description, "real");
}

TEST(ServerProfile, OnlyARegularFileUpTo1MiBIsRead) {
  testing::TempFolder dir("profiles");
  std::filesystem::create_directory(dir / "folder.json");
  ASSERT_EQ(mkfifo((dir / "fifo.json").c_str(), 0644), 0);
  ASSERT_EQ(symlink("fifo.json", (dir / "tofifo.json").c_str()), 0);
  for (const char* name : {"folder", "fifo", "tofifo"}) {
    std::string error = error_of(load_server_profile(name, dir.path(), std::nullopt));
    EXPECT_EQ(error, dir / (std::string(name) + ".json: is not a regular file; a server profile "
                                                "is a JSON file"));
  }
  std::string big = R"({"description": ")" + std::string(1024 * 1024, 'a') + "\"}";
  write_file(dir / "big.json", big);
  EXPECT_EQ(error_of(load_server_profile("big", dir.path(), std::nullopt)),
            dir / "big.json: is over 1 MiB, too large for a server profile");
}

TEST(ServerProfile, ABrokenUserFileStopsTheLoadNamingIt) {
  testing::TempFolder dir("profiles");
  write_file(dir / "filesystem.json", "{\"description\": \"x\",}");
  std::string error = error_of(load_server_profile("filesystem", dir.path(), std::nullopt));
  EXPECT_TRUE(error.starts_with(dir / "filesystem.json: is not valid JSON: ")) << error;
}

TEST(ServerProfile, NotJsonNamesTheFileAndThePosition) {
  std::string error = parse_error("{\"description\": \"x\"\n  \"runtime\": \"node\"}");
  EXPECT_TRUE(error.starts_with("x.json: is not valid JSON: parse error at line 2, column "))
      << error;
  EXPECT_EQ(parse_error("[1, 2]"), "x.json: must be a JSON object");
}

TEST(ServerProfile, AnUnknownKeyListsTheKeys) {
  EXPECT_EQ(parse_error(R"({"description": "x", "limitz": {}})"),
            "x.json: unknown key 'limitz' (the keys are deny_tools, description, env, home, "
            "hosts, limits, package, pass_through_env, runtime, secrets, shares, version)");
  EXPECT_EQ(parse_error(R"({"description": "x", "limits": {"memroy": "1g"}})"),
            "x.json: limits: unknown key 'memroy' (the keys are cpu_time, cpus, file_size, "
            "memory, pids, timeout, tmp_size)");
  EXPECT_EQ(parse_error("{\"description\": \"x\", \"a\\nb\": 1}"),
            "x.json: unknown key 'a\\nb' (the keys are deny_tools, description, env, home, "
            "hosts, limits, package, pass_through_env, runtime, secrets, shares, version)");
}

TEST(ServerProfile, AWrongTypeNamesTheKey) {
  EXPECT_EQ(parse_error(R"({})"), "x.json: 'description' is missing");
  EXPECT_EQ(parse_error(R"({"description": 3})"), "x.json: description: must be a string");
  EXPECT_EQ(parse_error(R"({"description": "x", "limits": {"memory": true}})"),
            "x.json: limits.memory: must be a string or an integer");
  EXPECT_EQ(parse_error(R"({"description": "x", "limits": {"cpus": [1]}})"),
            "x.json: limits.cpus: must be a number or a string");
  EXPECT_EQ(parse_error(R"({"description": "x", "hosts": "example.org"})"),
            "x.json: hosts: must be a list of strings");
  EXPECT_EQ(parse_error(R"({"description": "x", "hosts": ["a", 2]})"),
            "x.json: hosts[1]: must be a string");
  EXPECT_EQ(parse_error(R"({"description": "x", "hosts": [""]})"),
            "x.json: hosts[0]: must not be empty");
  EXPECT_EQ(parse_error(R"({"description": "x", "runtime": "nodejs"})"),
            "x.json: runtime: 'nodejs' is not valid; use node or python");
  EXPECT_EQ(parse_error(R"({"description": "x", "home": "temporary"})"),
            "x.json: home: 'temporary' is not valid; use kept or none");
  EXPECT_EQ(parse_error(R"({"description": "x", "env": {"A": 1}})"),
            "x.json: env.A: must be a string");
  EXPECT_EQ(parse_error(R"({"description": "x", "env": {"A-B": "1"}})"),
            "x.json: env: 'A-B' is not a variable name (letters, digits and '_', e.g. API_KEY)");
  EXPECT_EQ(parse_error(R"({"description": "x", "secrets": ["GH_TOKEN"]})"),
            "x.json: secrets[0]: 'GH_TOKEN' is not valid: NAME=ENVVAR@HOSTS, e.g. "
            "GITHUB_TOKEN=GH_TOKEN@api.github.com");
  EXPECT_TRUE(parse_error(R"({"description": "x", "runtime": "node", "package": "a b"})")
                  .starts_with("x.json: package: 'a b' is not valid: "));
}

TEST(ServerProfile, WhatTheSchemaCannotSay) {
  EXPECT_EQ(parse_error(R"({"description": "x", "package": "server"})"),
            "x.json: package: needs \"runtime\" (node or python), which says where it is "
            "downloaded from");
  EXPECT_EQ(parse_error(R"({"description": "x", "version": "1.0"})"),
            "x.json: version: needs \"package\", the package whose version it pins");
}

TEST(ServerProfile, AShareMustBeAnExistingFolder) {
  testing::TempFolder home("profile-home");
  write_file(home / "file", "");
  auto share_error = [&](const std::string& share, const std::optional<std::string>& at) {
    return parse_error(R"({"description": "x", "shares": [")" + share + "\"]}", at);
  };
  EXPECT_EQ(share_error("~/nope=nope:rw", home.path()),
            "x.json: shares[0]: " + home / "nope" + " does not exist (create it, or leave it out)");
  EXPECT_EQ(share_error("/nonexistent/folder", home.path()),
            "x.json: shares[0]: /nonexistent/folder does not exist (create it, or leave it out)");
  EXPECT_EQ(share_error("~/file=f", home.path()),
            "x.json: shares[0]: " + home / "file" + " is not a folder; share its folder instead");
  EXPECT_EQ(share_error("notes=notes", home.path()),
            "x.json: shares[0]: 'notes' is not absolute; a profile's folder starts with / or ~/ "
            "(the home)");
  EXPECT_EQ(share_error("~/notes", std::nullopt),
            "x.json: shares[0]: ~/notes starts with ~, but HOME is not set to a folder");
  EXPECT_TRUE(share_error("/tmp=not a name", home.path()).starts_with("x.json: shares[0]: share "))
      << share_error("/tmp=not a name", home.path());
  EXPECT_EQ(parse_error(R"({"description": "x", "shares": ["/tmp", "/nope"]})"),
            "x.json: shares[1]: /nope does not exist (create it, or leave it out)");
}

// docs/server-profiles.md shows every key of the schema, with the flag it stands for.
TEST(ServerProfile, TheDocsShowEveryKey) {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/server-profiles.md");
  ASSERT_TRUE(in);
  std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto schema = nlohmann::json::parse(builtin_server_profile_schema());
  for (const auto& [key, unused] : schema["properties"].items()) {
    EXPECT_NE(docs.find("`" + key + "`"), std::string::npos) << key;
  }
  for (const auto& [key, unused] : schema["properties"]["limits"]["properties"].items()) {
    EXPECT_NE(docs.find("`" + key + "`"), std::string::npos) << "limits." << key;
  }
  for (const auto& name : server_profile_names(std::nullopt)) {
    EXPECT_NE(docs.find("`" + name + "`"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace paddock::config::config_server_profile_test
