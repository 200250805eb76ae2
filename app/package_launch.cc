#include "app/package_launch.h"

#include <algorithm>
#include <cctype>

namespace paddock::app {
namespace {

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "@scope/name@1.2" -> "@scope/name"; "name@latest" -> "name".
std::string package_name(const std::string& spec) {
  auto at = spec.find('@', spec.starts_with("@") ? 1 : 0);
  return at == std::string::npos ? spec : spec.substr(0, at);
}

// npx's options that take a value as the next word.
bool takes_value(const std::string& option) {
  return option == "-p" || option == "--package" || option == "-c" || option == "--call";
}

}  // namespace

std::optional<PackageLaunch> package_launch(const std::vector<std::string>& command,
                                            const std::optional<std::string>& package,
                                            const std::optional<std::string>& version) {
  if (command.empty() || base_name(command[0]) != "npx") return std::nullopt;
  bool yes = false;
  std::optional<std::size_t> position;  // of the package word
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& word = command[i];
    if (word == "-y" || word == "--yes") {
      yes = true;
    } else if (word == "--") {
      if (i + 1 < command.size()) position = i + 1;
      break;
    } else if (takes_value(word)) {
      // `npx -p PKG cmd` installs PKG and runs cmd: the package is the option's value.
      if (i + 1 < command.size()) position = i + 1;
      ++i;
    } else if (word.starts_with("--package=")) {
      continue;
    } else if (!word.starts_with("-")) {
      if (!position) position = i;
      break;
    }
  }
  if (!yes || !position) return std::nullopt;
  PackageLaunch launch;
  launch.command = command;
  std::string& word = launch.command[*position];
  // A profile's version pins its own package, not whatever else the command was given.
  if (version && (!package || package_name(word) == *package)) {
    word = package_name(word) + "@" + *version;
  }
  launch.spec = word;
  launch.registry_host = "registry.npmjs.org";
  // npm exec with the same package spec fills the cache entry npx keys by that spec, then runs
  // a command that exits at once instead of the server.
  launch.install_command = {"npm", "exec", "--yes", "--package=" + launch.spec,
                            "--",  "node", "-e",    ""};
  launch.install_env = {"npm_config_update_notifier=false", "npm_config_fund=false",
                        "npm_config_audit=false"};
  launch.env = launch.install_env;
  launch.env.push_back("npm_config_offline=true");
  return launch;
}

std::string default_server_name(const std::vector<std::string>& command,
                                const std::optional<PackageLaunch>& launch) {
  std::string name = launch ? base_name(package_name(launch->spec))
                            : (command.empty() ? "server" : base_name(command[0]));
  std::string cut;
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    if (plain && cut.size() < 64) cut += c;
  }
  while (!cut.empty() && !std::isalnum(static_cast<unsigned char>(cut[0]))) cut.erase(0, 1);
  return cut.empty() ? "server" : cut;
}

}  // namespace paddock::app
