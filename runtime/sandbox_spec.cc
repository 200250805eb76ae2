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
