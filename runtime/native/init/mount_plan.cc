#include "runtime/native/init/mount_plan.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "runtime/command_aliases.h"
#include "runtime/native/init/network_fence.h"
#include "runtime/shared_budgets.h"

namespace paddock::init {
namespace {

using Kind = MountStep::Kind;
using Protect = MountStep::Protect;

std::string tmpfs_options(std::uint64_t bytes, mode_t mode, const SandboxIdentity* owner) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%o", static_cast<unsigned>(mode));
  std::string options = "size=" + std::to_string(bytes) + ",mode=" + octal;
  if (owner != nullptr) {
    options += ",uid=" + std::to_string(owner->uid) + ",gid=" + std::to_string(owner->gid);
  }
  return options;
}

bool is_under(const std::string& path, const std::string& dir) {
  return path == dir || path.starts_with(dir + "/");
}

class PlanBuilder {
 public:
  void add(MountStep step) { plan_.steps.push_back(std::move(step)); }
  void dir(const std::string& path, mode_t mode = 0755) {
    if (made_.insert(path).second) add({.kind = Kind::kMakeDir, .target = path, .mode = mode});
  }
  // mkdir -p for the parents of `path`.
  void parents(const std::string& path) {
    std::filesystem::path sandbox_path(path);
    std::string partial;
    for (auto it = sandbox_path.begin(); it != sandbox_path.end(); ++it) {
      if (*it == "/") continue;
      if (std::next(it) == sandbox_path.end()) break;
      partial += "/" + it->string();
      dir(partial);
    }
  }
  void file(const std::string& path, std::string content, mode_t mode = 0644) {
    add({.kind = Kind::kWriteFile, .target = path, .content = std::move(content), .mode = mode});
  }
  void symlink(const std::string& path, const std::string& to) {
    add({.kind = Kind::kSymlink, .target = path, .content = to});
  }
  void tmpfs(const std::string& path, std::string options) {
    dir(path);
    add({.kind = Kind::kTmpfs, .target = path, .options = std::move(options)});
  }
  void bind(const std::string& host, const std::string& path, Protect protect) {
    add({.kind = Kind::kBind, .target = path, .source = host, .protect = protect});
  }
  // `path` of the layout's tree (the host's, or a flattened image's) onto the same path.
  void bind_same(const HostLayout& layout, const std::string& path) {
    if (!layout.flattened_image) return bind(path, path, Protect::kSealedLater);
    add({.kind = Kind::kBind, .target = path, .source = path.substr(1), .layer_slot = 0});
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

void plan_etc(PlanBuilder& plan, const runtime::SandboxShape& shape, const HostLayout& host,
              const std::vector<HostLayout::Entry>& extra_etc, const SandboxIdentity& id,
              bool user_network) {
  plan.dir("/etc");
  plan.file("/etc/passwd", passwd_file(id));
  plan.file("/etc/group", group_file(id));
  plan.file("/etc/hostname", shape.hostname + "\n");
  plan.file("/etc/hosts", "127.0.0.1\tlocalhost " + shape.hostname +
                              "\n::1\tlocalhost ip6-localhost ip6-loopback\n");
  plan.file("/etc/nsswitch.conf", "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n");
  // pasta forwards DNS sent to this address to the host's resolver, which the sandbox could not
  // reach itself (network_fence.h). A file of paddock's: an image's own would go over it.
  if (user_network) {
    plan.file("/etc/resolv.conf", std::string("nameserver ") + kSandboxResolver + "\n");
  }
  auto add = [&](const HostLayout::Entry& entry) {
    std::string path = "/etc/" + entry.name;
    switch (entry.type) {
      case HostLayout::Entry::Type::kDirectory:
        plan.dir(path);
        plan.bind_same(host, path);
        break;
      case HostLayout::Entry::Type::kSymlink:
        plan.symlink(path, entry.content);
        break;
      case HostLayout::Entry::Type::kFile:
        // The host's is bound like its directories (read-only with the root); an image's file is
        // written, not bound from the copy.
        if (host.flattened_image) {
          plan.file(path, entry.content);
        } else {
          plan.bind_same(host, path);
        }
        break;
    }
  };
  for (const auto& entry : host.etc) add(entry);
  for (const auto& entry : extra_etc) add(entry);
}

// With the host's network, the host's resolver configuration.
void plan_resolv(PlanBuilder& plan, const runtime::SandboxShape& shape) {
  if (shape.network == runtime::NetworkMode::kHost) {
    plan.add({.kind = Kind::kBind,
              .target = "/etc/resolv.conf",
              .source = "/etc/resolv.conf",
              .protect = Protect::kSealedLater,
              .optional = true});
  }
}

// Brokered secrets' trust bundle over the system bundle's path: on the host's root only over the
// file the host's /etc/ssl has (nothing is ever made in a folder bound from the host), in an
// image's overlay in paddock's own upper layer. A flattened image, or a host without the file,
// gets none: the variables that name the path then name nothing, and TLS to the secrets' hosts
// fails closed.
void plan_trust_bundle(PlanBuilder& plan, const runtime::SandboxShape& shape,
                       const HostLayout& host, bool overlay) {
  if (shape.trust_bundle.empty()) return;
  if (!overlay && (host.flattened_image || !host.has_trust_bundle)) return;
  if (overlay) plan.parents(runtime::kSandboxTrustBundle);
  plan.add({.kind = Kind::kBind,
            .target = runtime::kSandboxTrustBundle,
            .source = shape.trust_bundle,
            .protect = Protect::kSealedLater,
            .bind_slot = static_cast<int>(shape.binds.size())});
}

void plan_dev(PlanBuilder& plan, const runtime::SandboxShape& shape) {
  plan.tmpfs("/dev", "size=65536,nr_inodes=64,mode=755");
  for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
    std::string path = std::string("/dev/") + node;
    plan.bind(path, path, Protect::kDevice);
  }
  plan.dir("/dev/pts");
  // max=: ptys come from one pool the host shares with every sandbox (shared_budgets.h).
  plan.add({.kind = Kind::kDevpts,
            .target = "/dev/pts",
            .options =
                "newinstance,ptmxmode=0666,mode=620,max=" + std::to_string(runtime::kSandboxPtys)});
  plan.symlink("/dev/ptmx", "pts/ptmx");
  plan.tmpfs("/dev/shm", tmpfs_options(shape.limits.tmp_bytes, 01777, nullptr));
  plan.symlink("/dev/fd", "/proc/self/fd");
  plan.symlink("/dev/stdin", "/proc/self/fd/0");
  plan.symlink("/dev/stdout", "/proc/self/fd/1");
  plan.symlink("/dev/stderr", "/proc/self/fd/2");
  plan.add({.kind = Kind::kRemountReadOnly, .target = "/dev"});
}

void plan_proc(PlanBuilder& plan) {
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

// llm-sandbox's work directory is /sandbox, and code written for it says so. In a sandbox on the
// host's root, /sandbox is a symlink to the work directory, made in the read-only root before it
// is sealed: the same directory under the old name, nothing more writable. An image's root is left
// as the image has it (it may have a /sandbox of its own); so is a /sandbox a bind asks for.
void plan_legacy_workdir(PlanBuilder& plan, const runtime::SandboxShape& shape) {
  const std::string legacy = "/sandbox";
  if (!shape.image_layers.empty() || is_under(shape.workdir, legacy)) return;
  for (const runtime::BindMount& bind : shape.binds) {
    if (is_under(bind.sandbox_path, legacy)) return;
  }
  plan.symlink(legacy, shape.workdir);
}

// `python` for the host's python3, in the sealed root (kSandboxAliasDir, last on the PATH):
// llm-sandbox's images have `python`, and its users' code runs `python script.py`. Only on the
// host's root: an image has its own commands and its own PATH. A bind there wins, as at /sandbox.
void plan_python_alias(PlanBuilder& plan, const runtime::SandboxShape& shape,
                       const HostLayout& host) {
  if (!shape.image_layers.empty() || !host.python3_without_python) return;
  for (const runtime::BindMount& bind : shape.binds) {
    if (is_under(bind.sandbox_path, runtime::kSandboxAliasDir)) return;
  }
  const std::string dir = runtime::kSandboxAliasDir;
  plan.parents(dir);
  plan.dir(dir);
  plan.symlink(dir + "/python", "/usr/bin/python3");
}

}  // namespace

std::string MountStep::describe() const {
  switch (kind) {
    case Kind::kStageRoot:
      return "preparing the new root (a tmpfs staged on /tmp)";
    case Kind::kOverlayRoot:
      return "mounting the image's layers (overlayfs) as the root";
    case Kind::kMakeDir:
      return "creating directory " + target;
    case Kind::kWriteFile:
      return "writing " + target;
    case Kind::kSymlink:
      return "creating symlink " + target + " -> " + content;
    case Kind::kTmpfs:
      return "mounting tmpfs on " + target;
    case Kind::kMakeMountPoint:
      return "creating mount point " + target;
    case Kind::kBind:
      if (layer_slot >= 0) return "binding the image's /" + source + " on " + target;
      return "binding " + source + " on " + target;
    case Kind::kProc:
      return "mounting proc on " + target;
    case Kind::kDevpts:
      return "mounting devpts on " + target;
    case Kind::kMaskWithNull:
      return "masking " + target;
    case Kind::kMaskWithEmpty:
      return "masking " + target;
    case Kind::kBindSelfReadOnly:
      return "making " + target + " read-only";
    case Kind::kSeal:
      return "making " + target + " and everything below it read-only";
    case Kind::kRemountReadOnly:
      return "remounting " + target + " read-only";
    case Kind::kPivotRoot:
      return "switching to the new root (pivot_root)";
  }
  return "mount step";
}

namespace {

// The host's programs and libraries where the sandbox has no image of its own, and the host's
// top-level entries where no overlay brings the image's.
void plan_host_tree(PlanBuilder& plan, const runtime::SandboxShape& shape, const HostLayout& host,
                    bool overlay) {
  if (shape.image_layers.empty()) {
    plan.dir("/usr");
    plan.bind("/usr", "/usr", Protect::kSealedLater);
  }
  if (!overlay) {
    for (const auto& entry : host.top_level) {
      std::string path = "/" + entry.name;
      if (entry.type == HostLayout::Entry::Type::kSymlink) {
        plan.symlink(path, entry.content);
      } else {
        plan.dir(path);
        plan.bind_same(host, path);
      }
    }
  }
}

// The work directory's tmpfs and the files it starts with.
void plan_work_directory(PlanBuilder& plan, const runtime::SandboxShape& shape,
                         const runtime::RunPlan& run, const SandboxIdentity& identity) {
  std::string work_options = tmpfs_options(shape.limits.work_bytes, 0755, &identity);
  if (shape.limits.work_files != 0) {
    work_options += ",nr_inodes=" + std::to_string(shape.limits.work_files);
  }
  plan.tmpfs(shape.workdir, work_options);
  for (const auto* files : {&run.files, &shape.support_files}) {
    for (const auto& file : *files) {
      std::string path = shape.workdir + "/" + file.path;
      plan.parents(path);
      plan.file(path, file.content, static_cast<mode_t>(file.mode));
    }
  }
  // With an installer, init writes these once it is done (child.h's late_files).
  if (run.networked_steps == 0) {
    for (const auto& file : run.files_after_install) {
      std::string path = shape.workdir + "/" + file.path;
      plan.parents(path);
      plan.file(path, file.content, static_cast<mode_t>(file.mode));
    }
  }
}

}  // namespace

MountPlan plan_mounts(const runtime::SandboxShape& shape, const runtime::RunPlan& run,
                      const HostLayout& host, const SandboxIdentity& identity, bool user_network,
                      const std::vector<HostLayout::Entry>& extra_etc) {
  PlanBuilder plan;
  plan.add({.kind = Kind::kStageRoot, .options = "size=4194304,nr_inodes=4096,mode=755"});

  // The read-only tree: the host's programs and libraries, a curated /etc, and every mount point
  // the later steps need (the root cannot take new directories once sealed). An image brings
  // its own programs, libraries and /etc; paddock's generated /etc files go over them.
  bool overlay = !shape.image_layers.empty() && !host.flattened_image;
  plan_host_tree(plan, shape, host, overlay);
  plan_etc(plan, shape, overlay ? HostLayout{} : host,
           overlay ? std::vector<HostLayout::Entry>{} : extra_etc, identity, user_network);
  for (const char* dir : {"/dev", "/proc", "/tmp"}) plan.dir(dir, 0755);
  plan.parents(shape.workdir);
  plan.dir(shape.workdir);
  plan_legacy_workdir(plan, shape);
  plan_python_alias(plan, shape, host);
  for (std::size_t i = 0; i < shape.binds.size(); ++i) {
    const runtime::BindMount& bind = shape.binds[i];
    if (!is_under(bind.sandbox_path, shape.workdir) && !is_under(bind.sandbox_path, "/tmp")) {
      plan.parents(bind.sandbox_path);
      plan.add({.kind = Kind::kMakeMountPoint,
                .target = bind.sandbox_path,
                .source = bind.host_path,
                .bind_slot = static_cast<int>(i)});
    }
  }
  // Everything made so far went into the overlay's upper layer; the image goes under it now.
  if (overlay) plan.add({.kind = Kind::kOverlayRoot});
  plan_resolv(plan, shape);
  plan_trust_bundle(plan, shape, host, overlay);
  plan.add({.kind = Kind::kSeal, .target = "/"});

  plan_dev(plan, shape);
  plan_proc(plan);
  plan.tmpfs("/tmp", tmpfs_options(shape.limits.tmp_bytes, 01777, nullptr));
  plan_work_directory(plan, shape, run, identity);

  for (std::size_t i = 0; i < shape.binds.size(); ++i) {
    const runtime::BindMount& bind = shape.binds[i];
    if (is_under(bind.sandbox_path, shape.workdir) || is_under(bind.sandbox_path, "/tmp")) {
      plan.parents(bind.sandbox_path);
    }
    plan.add({.kind = Kind::kBind,
              .target = bind.sandbox_path,
              .source = bind.host_path,
              .protect = bind.writable ? Protect::kWritable : Protect::kReadOnly,
              .bind_slot = static_cast<int>(i)});
  }
  plan.add({.kind = Kind::kPivotRoot, .target = "/"});
  return plan.take();
}

}  // namespace paddock::init
