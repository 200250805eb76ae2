#include "runtime/sandbox_parts.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "runtime/command_aliases.h"

namespace paddock::runtime {

std::vector<std::string> default_sandbox_env() {
  return {
      std::string("PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin:") +
          kSandboxAliasDir,
      "HOME=/work",
      "USER=sandbox",
      "LOGNAME=sandbox",
      "SHELL=/bin/sh",
      "LANG=C.UTF-8",
      "TMPDIR=/tmp",
      "HOSTNAME=sandbox",
  };
}

std::vector<std::string> merge_env(std::vector<std::string> env,
                                   const std::vector<std::string>& overrides) {
  for (const auto& entry : overrides) {
    std::string key = entry.substr(0, entry.find('='));
    std::erase_if(env, [&](const std::string& existing) {
      return existing.compare(0, key.size() + 1, key + "=") == 0;
    });
    if (entry.find('=') != std::string::npos) env.push_back(entry);
  }
  return env;
}

const char* to_string(NetworkMode mode) {
  switch (mode) {
    case NetworkMode::kNone:
      return "none";
    case NetworkMode::kUser:
      return "user";
    case NetworkMode::kHost:
      return "host";
  }
  return "none";
}

bool is_host_etc_name(const std::string& name) {
  static const std::set<std::string, std::less<>> kRefused = {
      // secrets, and what reveals the host's users and their ids
      "shadow", "shadow-", "gshadow", "gshadow-", "passwd-", "group-", "sudoers", "sudoers.d",
      "ssh", "security", "subuid", "subgid", "machine-id", "krb5.keytab",
      // what paddock writes for each sandbox
      "passwd", "group", "hostname", "hosts", "nsswitch.conf", "resolv.conf"};
  bool plain = !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
               std::all_of(name.begin(), name.end(), [](unsigned char c) {
                 return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-' || c == '+';
               });
  return plain && kRefused.count(name) == 0;
}

}  // namespace paddock::runtime
