#pragma once

// The sandbox's file system as a list of steps, decided in the parent and applied in order by
// the child (mount_applier.h). Pure data: unit tests check a plan without mounting anything.
//
// The child first makes a tmpfs its new root with pivot_root, keeping the host's root at
// kOldRoot until the plan is applied; "host" sources are read from there, so a bind of /usr is
// a bind of kOldRoot + "/usr".

#include <sys/types.h>

#include <string>
#include <vector>

#include "sandbox_spec.h"

namespace paddock {

inline constexpr const char* kOldRoot = "/.paddock-oldroot";

struct MountStep {
  enum class Kind {
    kEnterNewRoot,  // tmpfs staged on the host's /tmp in our mount namespace, then pivot_root
    kMakeDir,       // mkdir target (mode)
    kWriteFile,     // create target with `content` (mode)
    kSymlink,       // symlink target -> content
    kTmpfs,         // tmpfs on target with `options`
    kBind,  // bind host `source` onto target, created as a file or directory like the source;
            // an optional source that is a symlink is recreated as the same symlink
    kProc,          // a fresh procfs for the sandbox's PID namespace
    kDevpts,        // a private devpts instance
    kMaskWithNull,  // hide a file: bind /dev/null over it
    kMaskWithEmpty, // hide a directory: an empty read-only tmpfs over it
    kBindSelfReadOnly,  // make an existing path read-only (bind it onto itself, then remount)
    kDetachOldRoot,     // lazily unmount the host's root; nothing of it stays reachable
    kRemountReadOnly,   // remount one mount (not its submounts) read-only once it is filled
  };
  Kind kind = Kind::kMakeDir;
  std::string target{};
  std::string source{};   // host path for kBind
  std::string content{};  // file content, symlink target
  std::string options{};  // file system data for kTmpfs / kDevpts
  mode_t mode = 0755;
  bool read_only = false;
  bool allow_devices = false;  // only the /dev node binds; everything else is nodev
  bool optional = false;       // skip when the source or target does not exist

  // One line for error messages: "bind /usr on /usr (read-only)".
  [[nodiscard]] std::string describe() const;
};

// What the host's root looks like, where the plan depends on it (probed, or given by tests).
struct HostLayout {
  struct TopLevelEntry {
    std::string name;            // "bin", "lib64", ...
    std::string symlink_target;  // empty when it is a real directory
  };
  std::vector<TopLevelEntry> top_level;  // only those that exist
};

// Reads /bin, /sbin, /lib, /lib32, /lib64, /libx32 on this host.
HostLayout probe_host_layout();

// The host's /etc entries a sandbox sees, read-only, when they exist: what programs need to find
// libraries, certificates, time zones and Debian's alternatives, and nothing with secrets.
const std::vector<std::string>& host_etc_allowlist();

struct SandboxIdentity {
  unsigned uid = 1000;
  unsigned gid = 1000;
  std::string user = "sandbox";
  std::string home = "/work";
};

struct MountPlan {
  std::vector<MountStep> steps;
};

MountPlan plan_mounts(const SandboxSpec& spec, const HostLayout& host,
                      const SandboxIdentity& identity);

}  // namespace paddock
