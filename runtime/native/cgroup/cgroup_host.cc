#include "runtime/native/cgroup/cgroup_host.h"

#include <linux/magic.h>
#include <sys/statfs.h>

#include <sstream>

#include "core/files.h"

namespace paddock::cgroup {
namespace {

// mountinfo escapes spaces and a few other characters as octal (\040).
std::string unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      int value = 0;
      bool octal = true;
      for (std::size_t j = 1; j <= 3; ++j) {
        char c = field[i + j];
        octal = octal && c >= '0' && c <= '7';
        value = value * 8 + (c - '0');
      }
      if (octal) {
        out += static_cast<char>(value);
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

}  // namespace

std::optional<std::string> find_cgroup2_mount(std::string_view mountinfo) {
  std::istringstream lines{std::string(mountinfo)};
  std::string line;
  while (std::getline(lines, line)) {
    auto separator = line.find(" - ");
    if (separator == std::string::npos) continue;
    std::istringstream after(line.substr(separator + 3));
    std::string fs_type;
    after >> fs_type;
    if (fs_type != "cgroup2") continue;
    std::istringstream fields(line.substr(0, separator));
    std::string id, parent, device, root, mount_point;
    fields >> id >> parent >> device >> root >> mount_point;
    return unescape(mount_point);
  }
  return std::nullopt;
}

std::optional<std::string> find_unified_cgroup(std::string_view proc_self_cgroup) {
  std::istringstream lines{std::string(proc_self_cgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return std::nullopt;
}

CgroupLocation locate_own_cgroup() {
  CgroupLocation location;
  // Where systemd mounts it (unified, or hybrid's "unified"), asked with one statfs each:
  // mountinfo, made by the kernel line by line, cost every `paddock run` about 0.1 ms.
  for (const char* usual : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    struct statfs info {};
    if (statfs(usual, &info) == 0 && info.f_type == CGROUP2_SUPER_MAGIC) {
      location.mount_point = usual;
      break;
    }
  }
  if (location.mount_point.empty()) {
    location.mount_point =
        find_cgroup2_mount(core::read_text_or_empty("/proc/self/mountinfo")).value_or("");
  }
  location.own_path =
      find_unified_cgroup(core::read_text_or_empty("/proc/self/cgroup")).value_or("/");
  return location;
}

}  // namespace paddock::cgroup
