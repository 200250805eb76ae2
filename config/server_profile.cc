#include "config/server_profile.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "app/shares.h"
#include "config/builtin_server_profiles.h"
#include "config/server_profile_file.h"
#include "config/server_profile_schema.h"
#include "core/files.h"

namespace paddock::config {
namespace {

using nlohmann::json;

struct KeyFlag {
  const char* key;
  const char* flag;
};

// The limits, in the order ServerProfile::settings holds them.
constexpr KeyFlag kLimitFlags[] = {
    {"memory", "--memory"},     {"pids", "--pids"},           {"cpus", "--cpus"},
    {"cpu_time", "--cpu-time"}, {"file_size", "--file-size"}, {"tmp_size", "--tmp-size"},
    {"timeout", "--timeout"},
};

// The lists whose items are each one flag's value (shares are checked on their own).
constexpr KeyFlag kListFlags[] = {
    {"hosts", "--allow-host"},
    {"secrets", "--secret"},
    {"pass_through_env", "--pass-through-env"},
};

// A number as the flag would be typed: 256, 0.5.
std::string as_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

core::Error problem(const std::string& file, const std::string& key, const std::string& what) {
  return core::invalid_input(file + ": " + (key.empty() ? "" : key + ": ") + what);
}

// A share's folder with a leading "~" as `home`; it must be absolute, since nothing says what a
// relative folder of a profile would be relative to.
core::Result<std::string> share_folder(const std::string& folder, const std::string& file,
                                       const std::string& key,
                                       const std::optional<std::string>& home) {
  if (folder == "~" || folder.starts_with("~/")) {
    if (!home || !home->starts_with("/")) {
      return problem(file, key, folder + " starts with ~, but HOME is not set to a folder");
    }
    return *home + folder.substr(1);
  }
  if (!folder.starts_with("/")) {
    return problem(file, key,
                   "'" + escaped(folder) +
                       "' is not absolute; a profile's folder starts with / or ~/ (the home)");
  }
  return folder;
}

// One item of "shares", as --share takes it but with its folder's "~" expanded; its folder must
// exist now, so that a profile's mistake stops the start rather than the first tool call.
core::Result<std::string> checked_share(const std::string& text, const std::string& file,
                                        const std::string& key,
                                        const std::optional<std::string>& home) {
  auto spec = app::parse_share_spec(text);
  if (!spec) return problem(file, key, escaped(spec.error().message));
  auto folder = share_folder(spec->host_dir, file, key, home);
  if (!folder) return folder.error();
  struct stat status {};
  if (::stat(folder->c_str(), &status) != 0) {
    if (errno == ENOENT) {
      return problem(file, key, escaped(*folder) + " does not exist (create it, or leave it out)");
    }
    return problem(file, key, escaped(*folder) + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(status.st_mode)) {
    return problem(file, key, escaped(*folder) + " is not a folder; share its folder instead");
  }
  // parse_share_spec's folder is what the text starts with; the name and ":rw" follow it.
  return *folder + text.substr(spec->host_dir.size());
}

// What the schema cannot say: which keys need which.
core::Status check_needs(const json& document, const std::string& file) {
  if (document.contains("package") && !document.contains("runtime")) {
    return problem(file, "package",
                   "needs \"runtime\" (node or python), which says where it is downloaded from");
  }
  if (document.contains("version") && !document.contains("package")) {
    return problem(file, "version", "needs \"package\", the package whose version it pins");
  }
  return {};
}

// Each key as the settings of its flags, in ServerProfile::settings' order.
core::Status add_settings(const json& document, ServerProfile& profile,
                          const std::optional<std::string>& home) {
  auto add = [&](const char* flag, std::string value, const std::string& key) {
    profile.settings.push_back({flag, std::move(value), profile.file + ": " + key});
  };
  const json limits = document.value("limits", json::object());
  for (const KeyFlag& limit : kLimitFlags) {
    if (auto value = limits.find(limit.key); value != limits.end()) {
      add(limit.flag, as_text(*value), profile_key("limits", limit.key));
    }
  }
  const json shares = document.value("shares", json::array());
  for (std::size_t i = 0; i < shares.size(); ++i) {
    std::string key = profile_item("shares", i);
    auto share = checked_share(shares[i].get<std::string>(), profile.file, key, home);
    if (!share) return share.error();
    add("--share", std::move(*share), key);
  }
  for (const KeyFlag& list : kListFlags) {
    const json items = document.value(list.key, json::array());
    for (std::size_t i = 0; i < items.size(); ++i) {
      add(list.flag, items[i].get<std::string>(), profile_item(list.key, i));
    }
  }
  const json env = document.value("env", json::object());
  for (const auto& [name, value] : env.items()) {
    add("--env", name + "=" + value.get<std::string>(), profile_key("env", name));
  }
  const json tools = document.value("deny_tools", json::array());
  for (std::size_t i = 0; i < tools.size(); ++i) {
    add("--deny-tool", tools[i].get<std::string>(), profile_item("deny_tools", i));
  }
  return {};
}

std::optional<std::string> optional_text(const json& document, const char* key) {
  auto found = document.find(key);
  if (found == document.end()) return std::nullopt;
  return found->get<std::string>();
}

core::Error unknown_profile(const std::string& name, const std::optional<std::string>& user_dir) {
  std::string names;
  for (const std::string& known : server_profile_names(user_dir)) {
    names += (names.empty() ? "" : ", ") + known;
  }
  std::string where = user_dir ? *user_dir + "/" + name + ".json" : "a profile file";
  return core::invalid_input("unknown server profile '" + name + "'; there are " + names +
                             " (or write your own as " + where + ", see docs/server-profiles.md)");
}

}  // namespace

core::Result<ServerProfile> parse_server_profile(std::string_view text, const std::string& name,
                                                 const std::string& file,
                                                 const std::optional<std::string>& home) {
  auto document = core::parse_json_text(text, file);
  if (!document) return document.error();
  if (auto wrong = server_profile_schema_problem(*document)) {
    return core::invalid_input(file + ": " + *wrong);
  }
  if (auto needs = check_needs(*document, file); !needs) return needs.error();
  ServerProfile profile;
  profile.name = name;
  profile.file = file;
  profile.description = document->at("description").get<std::string>();
  profile.runtime = document->value("runtime", "");
  profile.package = optional_text(*document, "package");
  profile.version = optional_text(*document, "version");
  profile.kept_home = document->value("home", "kept") == "kept";
  if (auto added = add_settings(*document, profile, home); !added) return added.error();
  return profile;
}

core::Result<ServerProfile> load_server_profile(const std::string& name,
                                                const std::optional<std::string>& user_dir,
                                                const std::optional<std::string>& home) {
  if (!is_profile_name(name)) {
    return core::invalid_input("server profile '" + escaped(name) +
                               "' is not a profile name: letters, digits, '.', '_' and '-' (e.g. "
                               "filesystem), never a path");
  }
  if (user_dir && name != "schema") {
    auto text = read_user_profile(*user_dir, name);
    if (!text) return text.error();
    if (*text) return parse_server_profile(**text, name, *user_dir + "/" + name + ".json", home);
  }
  for (const auto& [builtin, text] : builtin_server_profiles()) {
    if (builtin != name) continue;
    auto profile = parse_server_profile(text, name, "built-in profile " + name, home);
    if (profile) profile->builtin = true;
    return profile;
  }
  return unknown_profile(name, user_dir);
}

std::vector<std::string> server_profile_names(const std::optional<std::string>& user_dir) {
  std::set<std::string> names;
  for (const auto& [name, text] : builtin_server_profiles()) names.emplace(name);
  if (user_dir) {
    for (std::string& name : user_profile_names(*user_dir)) names.insert(std::move(name));
  }
  return {names.begin(), names.end()};
}

}  // namespace paddock::config
