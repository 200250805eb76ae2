#include "runtime/native/host_probe.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "runtime/native/cgroup/cgroup_manager.h"
#include "runtime/native/id_map.h"
#include "runtime/native/user_namespace_check.h"
#include "runtime/rlimit_plan.h"

namespace paddock::native {
namespace {

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool write_text(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// Runs `body` in a forked child that has its own user and mount namespaces, mapped to itself.
// doctor is single-threaded, so a plain fork is safe here.
template <typename Body>
bool in_user_namespace(Body body) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  pid_t pid = fork();
  if (pid == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(1);
    write_text("/proc/self/setgroups", "deny");
    if (!write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1\n") ||
        !write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1\n")) {
      _exit(2);
    }
    _exit(body() ? 0 : 3);
  }
  if (pid < 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

Check probe_seccomp() {
  std::string actions = trim(core::read_text_or_empty("/proc/sys/kernel/seccomp/actions_avail"));
  if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) return {false, "the kernel has no seccomp"};
  return {actions.find("kill_process") != std::string::npos,
          actions.empty() ? "seccomp filter mode" : "actions: " + actions};
}

Check probe_overlayfs() {
  bool ok = in_user_namespace([] {
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
    if (mount("tmpfs", "/tmp", "tmpfs", 0, "size=1m") != 0) return false;
    for (const char* dir : {"/tmp/l", "/tmp/u", "/tmp/w", "/tmp/m"}) mkdir(dir, 0755);
    return mount("overlay", "/tmp/m", "overlay", 0,
                 "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w") == 0;
  });
  return {ok, ok ? "overlay mounts work in a user namespace"
                 : "overlayfs cannot be mounted in a user namespace (kernel 5.11+ needed); "
                   "images run from a flattened copy of their layers instead"};
}

void probe_cgroups(HostReport& report) {
  cgroup::CgroupLocation where = cgroup::locate_own_cgroup();
  cgroup::RealCgroupFs fs;
  if (where.mount_point.empty()) {
    report.cgroup_v2 = {false, "no cgroup2 file system is mounted (a cgroup v1 host)"};
  } else {
    std::string controllers =
        trim(core::read_text_or_empty(where.own_directory() + "/cgroup.controllers"));
    report.cgroup_v2 = {true, "mounted at " + where.mount_point + ", paddock is in " +
                                  where.own_path +
                                  ", controllers: " + (controllers.empty() ? "none" : controllers)};
  }
  cgroup::CgroupAssessment assessment = cgroup::assess_cgroups(fs, where, getpid());
  report.cgroup_v2_delegated = {assessment.usable, assessment.reason};
  report.limits_mode = assessment.usable ? "cgroup2" : "rlimit";
  if (!assessment.usable) report.not_enforced = runtime::totals_rlimits_cannot_enforce();
}

Check probe_id_helpers(const IdMapHost& host) {
  if (host.euid == 0) return {true, "running as root: maps are written directly"};
  if (host.no_new_privs) {
    return {false,
            "paddock runs with no_new_privs (set by whatever started it), so the setuid "
            "newuidmap/newgidmap cannot gain their privilege; the sandbox runs as your own uid "
            "and keeps your supplementary groups"};
  }
  if (!host.helpers_usable) {
    return {false,
            "newuidmap/newgidmap not installed setuid (apt-get install uidmap); "
            "the sandbox runs as your own uid and keeps your supplementary groups"};
  }
  if (!host.sub_uids || !host.sub_gids) {
    return {false,
            "no subordinate ids for this user in /etc/subuid and /etc/subgid "
            "(usermod --add-subuids/--add-subgids); the sandbox runs as your own uid"};
  }
  return {true, "subordinate uids " + std::to_string(host.sub_uids->start) + "+" +
                    std::to_string(host.sub_uids->count)};
}

Check probe_pidfd() {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
  if (fd < 0) return {false, "pidfd_open is missing (kernel 5.3+ needed)"};
  close(fd);
  return {true, "pidfd_open works"};
}

// What runtime/native/user_network.cc needs: pasta, and /dev/net/tun opened read-write by this
// user (pasta hangs rather than fails without it).
Check probe_user_network() {
  if (access("/usr/bin/pasta", X_OK) != 0) {
    return {false, "pasta is not installed (sudo apt-get install passt)"};
  }
  int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (tun < 0) {
    return {false, std::string("/dev/net/tun cannot be opened by this user (") +
                       std::strerror(errno) + "): as root, chmod 0666 /dev/net/tun"};
  }
  close(tun);
  return {true, "pasta and /dev/net/tun: library installs and --network user work"};
}

nlohmann::json check_json(const Check& check) {
  return {{"available", check.available}, {"detail", check.detail}};
}

}  // namespace

HostReport probe_host() {
  HostReport report;
  utsname name{};
  if (uname(&name) == 0) report.kernel = std::string(name.sysname) + " " + name.release;
  report.running_as_root = geteuid() == 0;
  report.user_namespaces =
      user_namespace_check(describe_user_namespaces(in_user_namespace([] { return true; })));
  report.seccomp = probe_seccomp();
  report.overlayfs_in_user_namespace = probe_overlayfs();
  probe_cgroups(report);
  IdMapHost host = probe_id_map_host();
  report.id_helpers = probe_id_helpers(host);
  report.pidfd = probe_pidfd();
  report.user_network = probe_user_network();
  report.id_mapping = to_string(plan_id_map(host, 1, 1000, 1000).method);
  return report;
}

nlohmann::json to_json(const HostReport& report) {
  return {
      {"kernel", report.kernel},
      {"running_as_root", report.running_as_root},
      {"user_namespaces", check_json(report.user_namespaces)},
      {"seccomp", check_json(report.seccomp)},
      {"overlayfs_in_user_namespace", check_json(report.overlayfs_in_user_namespace)},
      {"cgroup_v2", check_json(report.cgroup_v2)},
      {"cgroup_v2_delegated", check_json(report.cgroup_v2_delegated)},
      {"id_helpers", check_json(report.id_helpers)},
      {"pidfd", check_json(report.pidfd)},
      {"user_network", check_json(report.user_network)},
      {"will_use",
       {{"id_mapping", report.id_mapping},
        {"limits_mode", report.limits_mode},
        {"not_enforced", report.not_enforced},
        {"ready",
         report.user_namespaces.available && report.seccomp.available && report.pidfd.available}}},
  };
}

std::string to_text(const HostReport& report) {
  std::ostringstream out;
  std::string unenforced;
  for (const auto& name : report.not_enforced) {
    unenforced += (unenforced.empty() ? "" : ", ") + name;
  }
  auto line = [&](const char* label, const Check& check) {
    out << (check.available ? "  ok    " : "  no    ") << label << ": " << check.detail << "\n";
  };
  out << "paddock doctor: " << report.kernel << (report.running_as_root ? ", as root" : "") << "\n";
  line("user namespaces", report.user_namespaces);
  line("seccomp", report.seccomp);
  line("pidfd", report.pidfd);
  line("overlayfs in a user namespace", report.overlayfs_in_user_namespace);
  line("cgroup v2", report.cgroup_v2);
  line("cgroup v2 delegation", report.cgroup_v2_delegated);
  line("newuidmap and subordinate ids", report.id_helpers);
  line("user-mode networking", report.user_network);
  bool ready =
      report.user_namespaces.available && report.seccomp.available && report.pidfd.available;
  out << "paddock will use: id mapping '" << report.id_mapping << "', limits '"
      << report.limits_mode << "'"
      << (report.limits_mode == "rlimit"
              ? " (per-process rlimits: memory binds each process alone, tmpfs and shared memory "
                "uncounted; not enforced for the sandbox as a whole: " +
                    unenforced + ")"
              : "")
      << "\n"
      << (ready ? "ready: paddock can run sandboxes here\n"
                : "NOT ready: fix the lines marked 'no' above that paddock needs (user namespaces, "
                  "seccomp, pidfd)\n");
  return out.str();
}

}  // namespace paddock::native
