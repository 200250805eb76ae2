#pragma once

// What this host offers paddock, for `paddock doctor`: each mechanism probed for real (a user
// namespace is created, an overlay is mounted), not guessed from version numbers.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace paddock::native {

struct Check {
  bool available = false;
  std::string detail;  // what was found, or how to fix the host
};

struct HostReport {
  Check user_namespaces;
  Check seccomp;
  Check overlayfs_in_user_namespace;
  Check cgroup_v2;            // a cgroup2 mount exists
  Check cgroup_v2_delegated;  // paddock may create child cgroups with memory, pids and cpu
  Check id_helpers;           // newuidmap/newgidmap and subordinate ids for this user
  Check pidfd;
  Check user_network;       // pasta and a /dev/net/tun this user can open (--lib, --network user)
  std::string id_mapping;   // what paddock will use
  std::string limits_mode;  // what paddock will use
  std::vector<std::string> not_enforced;  // per-sandbox totals that mode cannot hold
  std::string kernel;
  bool running_as_root = false;
};

HostReport probe_host();
nlohmann::json to_json(const HostReport& report);
std::string to_text(const HostReport& report);

}  // namespace paddock::native
