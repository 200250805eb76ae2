#pragma once

// Where cgroup v2 is on this host and where paddock itself sits in it: parsed from
// /proc/self/mountinfo and /proc/self/cgroup (pure functions, so tests feed them text).

#include <optional>
#include <string>
#include <string_view>

namespace paddock::cgroup {

struct CgroupLocation {
  std::string mount_point;  // e.g. "/sys/fs/cgroup"; empty when no cgroup2 is mounted
  std::string own_path;     // paddock's cgroup relative to that mount, e.g. "/user.slice/..."

  [[nodiscard]] std::string own_directory() const {
    return own_path == "/" ? mount_point : mount_point + own_path;
  }
};

// The first cgroup2 mount in mountinfo text.
std::optional<std::string> find_cgroup2_mount(std::string_view mountinfo);
// The "0::PATH" entry of /proc/self/cgroup text (the unified hierarchy).
std::optional<std::string> find_unified_cgroup(std::string_view proc_self_cgroup);

CgroupLocation locate_own_cgroup();

}  // namespace paddock::cgroup
