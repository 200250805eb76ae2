#include "native/mount_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <set>

namespace paddock {
namespace {

using Kind = MountStep::Kind;

std::string tmpfs_options(std::uint64_t bytes, mode_t mode, const SandboxIdentity* owner) {
  std::string options = "size=" + std::to_string(bytes) + ",mode=" + [&] {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%o", static_cast<unsigned>(mode));
    return std::string(octal);
  }();
  if (owner != nullptr) {
    options += ",uid=" + std::to_string(owner->uid) + ",gid=" + std::to_string(owner->gid);
  }
  return options;
}

class PlanBuilder {
 public:
  void add(MountStep step) { plan_.steps.push_back(std::move(step)); }
  void dir(const std::string& path, mode_t mode = 0755) {
    made_.insert(path);
    add({.kind = Kind::kMakeDir, .target = path, .mode = mode});
  }
  // mkdir -p for the parents of `path` that this plan has not made yet.
  void parents(const std::string& path) {
    std::filesystem::path sandbox_path(path);
    std::string partial;
    for (auto it = sandbox_path.begin(); it != sandbox_path.end(); ++it) {
      if (*it == "/") continue;
      if (std::next(it) == sandbox_path.end()) break;
      partial += "/" + it->string();
      if (made_.insert(partial).second) dir(partial);
    }
  }
  void file(const std::string& path, std::string content, mode_t mode = 0644) {
    add({.kind = Kind::kWriteFile, .target = path, .content = std::move(content), .mode = mode});
  }
  void symlink(const std::string& path, const std::string& to) {
    add({.kind = Kind::kSymlink, .target = path, .content = to});
  }
  void tmpfs(const std::string& path, std::string options) {
    add({.kind = Kind::kTmpfs, .target = path, .options = std::move(options)});
  }
  void bind(const std::string& host, const std::string& path, bool read_only, bool optional) {
    add({.kind = Kind::kBind, .target = path, .source = host, .read_only = read_only,
         .optional = optional});
  }
  MountPlan take() { return std::move(plan_); }

 private:
  MountPlan plan_;
  std::set<std::string> made_;
};

std::string passwd_file(const SandboxIdentity& id) {
  return "root:x:0:0:root:/root:/usr/sbin/nologin\n" + id.user + ":x:" + std::to_string(id.uid) +
         ":" + std::to_string(id.gid) + ":" + id.user + ":" + id.home + ":/bin/sh\n" +
         "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string group_file(const SandboxIdentity& id) {
  return "root:x:0:\n" + id.user + ":x:" + std::to_string(id.gid) + ":\nnogroup:x:65534:\n";
}

void plan_etc(PlanBuilder& plan, const SandboxSpec& spec, const SandboxIdentity& id) {
  plan.dir("/etc");
  plan.file("/etc/passwd", passwd_file(id));
  plan.file("/etc/group", group_file(id));
  plan.file("/etc/hostname", spec.hostname + "\n");
  plan.file("/etc/hosts", "127.0.0.1\tlocalhost " + spec.hostname +
                              "\n::1\tlocalhost ip6-localhost ip6-loopback\n");
  plan.file("/etc/nsswitch.conf", "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n");
  for (const auto& entry : host_etc_allowlist()) {
    plan.bind("/etc/" + entry, "/etc/" + entry, /*read_only=*/true, /*optional=*/true);
  }
  if (spec.network == NetworkMode::kHost) {
    plan.bind("/etc/resolv.conf", "/etc/resolv.conf", true, true);
  }
}

void plan_dev(PlanBuilder& plan, const SandboxSpec& spec) {
  plan.dir("/dev");
  plan.tmpfs("/dev", "size=65536,nr_inodes=64,mode=755");
  for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
    std::string path = std::string("/dev/") + node;
    plan.add({.kind = Kind::kBind, .target = path, .source = path, .allow_devices = true});
  }
  plan.dir("/dev/pts");
  plan.add({.kind = Kind::kDevpts, .target = "/dev/pts",
            .options = "newinstance,ptmxmode=0666,mode=620"});
  plan.symlink("/dev/ptmx", "pts/ptmx");
  plan.dir("/dev/shm", 01777);
  plan.tmpfs("/dev/shm", tmpfs_options(spec.limits.tmp_bytes, 01777, nullptr));
  plan.symlink("/dev/fd", "/proc/self/fd");
  plan.symlink("/dev/stdin", "/proc/self/fd/0");
  plan.symlink("/dev/stdout", "/proc/self/fd/1");
  plan.symlink("/dev/stderr", "/proc/self/fd/2");
  plan.add({.kind = Kind::kRemountReadOnly, .target = "/dev"});
}

void plan_proc(PlanBuilder& plan) {
  plan.dir("/proc");
  plan.add({.kind = Kind::kProc, .target = "/proc"});
  // Kernel state that is nobody's business inside a sandbox, as container runtimes hide it.
  for (const char* file : {"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
                           "/proc/latency_stats", "/proc/timer_stats", "/proc/sysrq-trigger"}) {
    plan.add({.kind = Kind::kMaskWithNull, .target = file, .optional = true});
  }
  for (const char* dir : {"/proc/acpi", "/proc/asound", "/proc/scsi"}) {
    plan.add({.kind = Kind::kMaskWithEmpty, .target = dir, .optional = true});
  }
  for (const char* path : {"/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq"}) {
    plan.add({.kind = Kind::kBindSelfReadOnly, .target = path, .optional = true});
  }
}

}  // namespace

std::string MountStep::describe() const {
  switch (kind) {
    case Kind::kEnterNewRoot: return "preparing the new root (tmpfs and pivot_root)";
    case Kind::kMakeDir: return "creating directory " + target;
    case Kind::kWriteFile: return "writing " + target;
    case Kind::kSymlink: return "creating symlink " + target + " -> " + content;
    case Kind::kTmpfs: return "mounting tmpfs on " + target;
    case Kind::kBind:
      return "binding " + source + " on " + target + (read_only ? " (read-only)" : "");
    case Kind::kProc: return "mounting proc on " + target;
    case Kind::kDevpts: return "mounting devpts on " + target;
    case Kind::kMaskWithNull: return "masking " + target;
    case Kind::kMaskWithEmpty: return "masking " + target;
    case Kind::kBindSelfReadOnly: return "making " + target + " read-only";
    case Kind::kDetachOldRoot: return "detaching the host's root";
    case Kind::kRemountReadOnly: return "remounting " + target + " read-only";
  }
  return "mount step";
}

HostLayout probe_host_layout() {
  HostLayout layout;
  for (const char* name : {"bin", "sbin", "lib", "lib32", "lib64", "libx32"}) {
    std::string path = std::string("/") + name;
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0) continue;
    HostLayout::TopLevelEntry entry{name, ""};
    if (S_ISLNK(info.st_mode)) {
      std::array<char, 4096> target{};
      ssize_t length = readlink(path.c_str(), target.data(), target.size() - 1);
      if (length <= 0) continue;
      entry.symlink_target.assign(target.data(), static_cast<std::size_t>(length));
    } else if (!S_ISDIR(info.st_mode)) {
      continue;
    }
    layout.top_level.push_back(std::move(entry));
  }
  return layout;
}

const std::vector<std::string>& host_etc_allowlist() {
  static const std::vector<std::string> kEntries = {
      "alternatives",  "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",   "timezone",
      "ssl",           "ca-certificates", "ca-certificates.conf", "fonts", "mime.types",
      "protocols",     "services",    "os-release", "debian_version", "java-17-openjdk",
      "java-21-openjdk", "R",         "python3",    "python3.11",  "gai.conf",    "login.defs",
      "profile",       "bash.bashrc", "inputrc",    "magic",       "mailcap",     "environment",
  };
  return kEntries;
}

MountPlan plan_mounts(const SandboxSpec& spec, const HostLayout& host,
                      const SandboxIdentity& identity) {
  PlanBuilder plan;
  plan.add({.kind = Kind::kEnterNewRoot, .options = "size=1048576,nr_inodes=4096,mode=755"});

  plan.bind("/usr", "/usr", /*read_only=*/true, /*optional=*/false);
  for (const auto& entry : host.top_level) {
    std::string path = "/" + entry.name;
    if (!entry.symlink_target.empty()) {
      plan.symlink(path, entry.symlink_target);
    } else {
      plan.bind(path, path, true, false);
    }
  }
  plan_etc(plan, spec, identity);
  plan_dev(plan, spec);
  plan_proc(plan);

  plan.dir("/tmp", 01777);
  plan.tmpfs("/tmp", tmpfs_options(spec.limits.tmp_bytes, 01777, nullptr));
  plan.parents(spec.workdir);
  plan.dir(spec.workdir);
  plan.tmpfs(spec.workdir, tmpfs_options(spec.limits.work_bytes, 0755, &identity));
  if (identity.home != spec.workdir && identity.home != "/tmp") {
    plan.parents(identity.home);
    plan.dir(identity.home);
    plan.tmpfs(identity.home, tmpfs_options(spec.limits.tmp_bytes, 0755, &identity));
  }

  for (const auto& bind : spec.binds) {
    plan.parents(bind.sandbox_path);
    plan.bind(bind.host_path, bind.sandbox_path, !bind.writable, false);
  }

  plan.add({.kind = Kind::kDetachOldRoot});
  plan.add({.kind = Kind::kRemountReadOnly, .target = "/"});
  return plan.take();
}

}  // namespace paddock
