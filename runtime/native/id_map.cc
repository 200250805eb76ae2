#include "runtime/native/id_map.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <sstream>

#include "core/files.h"
#include "core/unique_fd.h"
#include "core/user_account.h"

extern char** environ;

namespace paddock::native {
namespace {

constexpr const char* kNewUidMap = "/usr/bin/newuidmap";
constexpr const char* kNewGidMap = "/usr/bin/newgidmap";

bool setuid_root_helper(const char* path) {
  struct stat info {};
  return stat(path, &info) == 0 && info.st_uid == 0 && (info.st_mode & S_ISUID) != 0;
}

std::string user_name(uid_t uid) {
  auto entry = core::passwd_entry(uid);
  return entry ? entry->name : std::string();
}

core::Status write_proc_file(pid_t pid, const char* name, const std::string& content) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  core::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return core::system_error("opening " + path);
  if (write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    return core::system_error("writing " + path);
  }
  return {};
}

core::Status run_helper(const char* helper, pid_t pid, std::uint32_t inside, std::uint32_t host) {
  std::string pid_text = std::to_string(pid), inside_text = std::to_string(inside),
              host_text = std::to_string(host), count = "1";
  std::array<char*, 6> argv = {const_cast<char*>(helper), pid_text.data(), inside_text.data(),
                               host_text.data(),          count.data(),    nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The helper's own complaints go to paddock's stderr; its stdout must not reach ours.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t helper_pid = -1;
  int rc = posix_spawn(&helper_pid, helper, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return core::system_error(std::string("starting ") + helper, rc);
  int status = 0;
  while (waitpid(helper_pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return core::Error{EPERM, std::string(helper) + " " + pid_text + " " + inside_text + " " +
                                  host_text + " 1 failed; check /etc/subuid and /etc/subgid"};
  }
  return {};
}

}  // namespace

std::optional<IdRange> find_subordinate_range(std::string_view file_text, std::string_view user,
                                              uid_t uid) {
  std::string uid_text = std::to_string(uid);
  std::istringstream lines{std::string(file_text)};
  std::string line;
  while (std::getline(lines, line)) {
    auto first = line.find(':');
    auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string_view owner(line.data(), first);
    if (owner != user && owner != uid_text) continue;
    IdRange range;
    const char* start = line.data() + first + 1;
    const char* end = line.data() + line.size();
    auto parsed_start = std::from_chars(start, line.data() + second, range.start);
    auto parsed_count = std::from_chars(line.data() + second + 1, end, range.count);
    if (parsed_start.ec != std::errc() || parsed_count.ec != std::errc() || range.count == 0) {
      continue;
    }
    return range;
  }
  return std::nullopt;
}

IdMapHost probe_id_map_host() {
  IdMapHost host;
  host.euid = geteuid();
  host.egid = getegid();
  if (host.euid == 0) return host;
  std::string name = user_name(host.euid);
  host.sub_uids = find_subordinate_range(core::read_text_or_empty("/etc/subuid"), name, host.euid);
  host.sub_gids = find_subordinate_range(core::read_text_or_empty("/etc/subgid"), name, host.euid);
  host.no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
  host.helpers_usable =
      !host.no_new_privs && setuid_root_helper(kNewUidMap) && setuid_root_helper(kNewGidMap);
  return host;
}

const char* to_string(IdMapMethod method) {
  switch (method) {
    case IdMapMethod::kSelf:
      return "self";
    case IdMapMethod::kSubordinate:
      return "subordinate";
    case IdMapMethod::kRoot:
      return "root";
  }
  return "unknown";
}

core::Result<std::optional<HostOwner>> writable_bind_owner(
    const IdMapHost& host, const std::vector<std::string>& folders) {
  std::optional<HostOwner> owner;
  for (const auto& folder : folders) {
    struct stat info {};
    if (stat(folder.c_str(), &info) != 0) return core::system_error("read-write bind " + folder);
    if (owner && owner->uid != info.st_uid) {
      return core::invalid_input("read-write binds " + folders.front() + " and " + folder +
                                 " have different owners; a sandbox writes as one host user");
    }
    if (host.euid != 0 && info.st_uid != host.euid) {
      return core::invalid_input("read-write bind " + folder + " is owned by uid " +
                                 std::to_string(info.st_uid) + ", not by you (uid " +
                                 std::to_string(host.euid) +
                                 "); a sandbox can only write as you: bind it read-only");
    }
    if (info.st_uid == 0) {
      return core::invalid_input(
          "read-write bind " + folder +
          " is owned by root, and sandboxes never run as host root; give the "
          "folder to an unprivileged user, or bind it read-only");
    }
    // The owner's own primary group, as the owner's own writes would have: not the folder's,
    // which may be a group the owner is not in, or root's.
    gid_t group = core::primary_group_of(info.st_uid).value_or(info.st_gid);
    if (group == 0) {
      return core::invalid_input("read-write bind " + folder +
                                 ": its owner's group is root's, and sandboxes never run with it; "
                                 "bind it read-only");
    }
    owner = HostOwner{info.st_uid, group};
  }
  return owner;
}

IdMapPlan plan_id_map(const IdMapHost& host, pid_t child_pid, std::uint32_t inside_uid,
                      std::uint32_t inside_gid, std::optional<HostOwner> writer) {
  IdMapPlan plan;
  plan.inside_uid = inside_uid;
  plan.inside_gid = inside_gid;
  auto slot = static_cast<std::uint32_t>(child_pid);
  if (writer && host.euid == 0) {
    plan.method = IdMapMethod::kRoot;
    plan.host_uid = writer->uid;
    plan.host_gid = writer->gid;
    plan.setgroups_allowed = true;
  } else if (writer) {
    plan.method = IdMapMethod::kSelf;
    plan.host_uid = host.euid;
    plan.host_gid = host.egid;
    plan.setgroups_allowed = false;
  } else if (host.euid == 0) {
    plan.method = IdMapMethod::kRoot;
    plan.host_uid = plan.host_gid = kRootHostIdBase + slot;
    plan.setgroups_allowed = true;
  } else if (host.helpers_usable && host.sub_uids && host.sub_gids) {
    plan.method = IdMapMethod::kSubordinate;
    plan.host_uid = host.sub_uids->start + slot % host.sub_uids->count;
    plan.host_gid = host.sub_gids->start + slot % host.sub_gids->count;
    plan.setgroups_allowed = true;
  } else {
    plan.method = IdMapMethod::kSelf;
    plan.host_uid = host.euid;
    plan.host_gid = host.egid;
    plan.setgroups_allowed = false;
  }
  return plan;
}

core::Status apply_id_map(pid_t child_pid, const IdMapPlan& plan) {
  if (plan.method == IdMapMethod::kSubordinate) {
    if (auto done = run_helper(kNewUidMap, child_pid, plan.inside_uid, plan.host_uid); !done) {
      return done;
    }
    return run_helper(kNewGidMap, child_pid, plan.inside_gid, plan.host_gid);
  }
  auto line = [](std::uint32_t inside, std::uint32_t host) {
    return std::to_string(inside) + " " + std::to_string(host) + " 1\n";
  };
  if (!plan.setgroups_allowed) {
    if (auto done = write_proc_file(child_pid, "setgroups", "deny"); !done) return done;
  }
  if (auto done = write_proc_file(child_pid, "uid_map", line(plan.inside_uid, plan.host_uid));
      !done) {
    return done;
  }
  return write_proc_file(child_pid, "gid_map", line(plan.inside_gid, plan.host_gid));
}

}  // namespace paddock::native
