#pragma once

// Server profiles of `paddock wrap --profile NAME`: a file of wrap's settings for one stdio MCP
// server (policies/servers/NAME.json, built in; ~/.config/paddock/servers/NAME.json, the user's),
// checked against policies/servers/schema.json. A profile holds no values of its own kind: each
// key stands for a flag of the settings table (config/table.h), and loading a profile gives its
// values as that flag's text, so that the table parses a profile exactly as it parses the command
// line, and wrap lays the flags over them (a flag replaces a profile's single value and adds to
// its lists). docs/server-profiles.md describes the format.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace paddock::config {

// One value of a profile as a flag of the settings table would give it.
struct ProfileSetting {
  std::string flag;   // "--memory", "--allow-host", "--env"...
  std::string value;  // as text: "512m", "256" (a number's text), "NAME=VALUE" for --env
  // Where it was written, for errors: "/home/me/.config/paddock/servers/x.json: limits.memory"
  // or "built-in profile filesystem: limits.memory".
  std::string where;
};

struct ServerProfile {
  std::string name;  // "filesystem"
  // What errors call the profile: the user's file by its path, else "built-in profile NAME".
  std::string file;
  bool builtin = false;
  std::string description;
  std::string runtime;                 // "node", "python", or "" when the profile does not say
  std::optional<std::string> package;  // what the launcher downloads on the first start
  std::optional<std::string> version;  // the package's version, pinned
  bool kept_home = true;               // "home": "kept" (the default) or "none"
  // In a fixed order: the limits (memory, pids, cpus, cpu_time, file_size, tmp_size, timeout),
  // then shares, hosts, secrets, pass_through_env, env (by name) and deny_tools, each list in
  // its order.
  std::vector<ProfileSetting> settings;
};

// The profile NAME: the user's NAME.json in `user_dir` (~/.config/paddock/servers, found by the
// command line from XDG_CONFIG_HOME or HOME) when there is one, which replaces the built-in NAME
// whole; else the built-in one. A leading "~" of a share's folder is `home`. Errors are one line
// naming the file and the key: a name that is not plain (letters, digits, '.', '_', '-'; no '/'
// or ".."), an unknown name (listing the names there are), a user file that is a symlink out of
// `user_dir`, not a regular file or over 1 MiB, not JSON, a key or value the schema refuses, or
// a share whose folder does not exist.
core::Result<ServerProfile> load_server_profile(const std::string& name,
                                                const std::optional<std::string>& user_dir,
                                                const std::optional<std::string>& home);

// One profile's text, `file` naming it in errors ("built-in profile NAME" or the file's path).
core::Result<ServerProfile> parse_server_profile(std::string_view text, const std::string& name,
                                                 const std::string& file,
                                                 const std::optional<std::string>& home);

// Every profile there is, built in or in `user_dir`, sorted: what an unknown name's error lists.
std::vector<std::string> server_profile_names(const std::optional<std::string>& user_dir);

}  // namespace paddock::config
