#include "sandbox_spec.h"

namespace paddock {

std::vector<std::string> default_sandbox_env() {
  return {
      "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
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
    env.push_back(entry);
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

}  // namespace paddock
