#pragma once

// The sandbox's file system as a list of steps, decided in the parent and applied in order by
// the child (mount_applier.h). Pure: what it needs of the host comes in as a HostLayout, probed
// beforehand (host_layout.h), so unit tests check a plan without touching the host.
//
// The child builds the new root on a tmpfs staged at the host's /tmp (in its own private mount
// namespace), so host paths are still reachable as sources. Step targets are sandbox paths; the
// applier puts them under the staging directory. The read-only part of the tree (/usr, /etc,
// read-only binds) is sealed with one recursive mount_setattr before the writable and device
// mounts go on top, and kPivotRoot finally makes the staged tree "/" and drops the host's root.

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/native/init/host_layout.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::init {

struct MountStep {
  enum class Kind {
    kStageRoot,       // make "/" private, mount the staging tmpfs (options) that becomes the root
    kOverlayRoot,     // an image's layers (read-only) as an overlay over the staging tmpfs
    kMakeDir,         // mkdir target (mode)
    kWriteFile,       // create target with `content` (mode)
    kSymlink,         // symlink target -> content
    kTmpfs,           // tmpfs on target with `options`
    kMakeMountPoint,  // create target as a file or directory, like the bind source will be
    kBind,            // bind host `source` (or the fd in bind_slot) onto target, created as a file
                      // or directory like the source; then `protect` decides its attributes
    kProc,            // a fresh procfs for the sandbox's PID namespace
    kDevpts,          // a private devpts instance
    kMaskWithNull,    // hide a file: bind /dev/null over it
    kMaskWithEmpty,   // hide a directory: an empty read-only tmpfs over it
    kBindSelfReadOnly,  // make an existing path read-only (bind it onto itself, then remount)
    kSeal,              // read-only, nosuid, nodev on target and every mount below it
    kRemountReadOnly,   // read-only on one mount (not its submounts) once it is filled
    kPivotRoot,         // the staged tree becomes "/", the host's root is detached
  };
  enum class Protect {
    kSealedLater,  // a kSeal step further on makes it read-only
    kReadOnly,     // read-only, nosuid, nodev right away
    kDevice,       // a device node: keeps the host's flags (nodev would make it useless)
    kWritable,     // nosuid, nodev
  };
  Kind kind = Kind::kMakeDir;
  std::string target{};
  std::string source{};   // host path for kBind
  std::string content{};  // file content, symlink target
  std::string options{};  // file system data for kTmpfs / kDevpts
  mode_t mode = 0755;
  Protect protect = Protect::kSealedLater;
  int bind_slot = -1;     // for user binds: index of the O_PATH fd the parent opened
  int layer_slot = -1;    // for a flattened image: `source` is relative to this layer's fd
  bool optional = false;  // skip when the source or target does not exist

  // One line for error messages: "binding /usr on /usr".
  [[nodiscard]] std::string describe() const;
};

struct SandboxIdentity {
  unsigned uid = 1000;
  unsigned gid = 1000;
  std::string user = "sandbox";
  std::string home = "/work";
};

struct MountPlan {
  std::vector<MountStep> steps;
};

// `user_network`: the sandbox may get user-mode networking (may_use_user_network), so it gets
// paddock's resolver configuration.
// `extra_etc`: the run's own host /etc entries (SandboxShape::host_etc, probed), after the
// layout's.
MountPlan plan_mounts(const runtime::SandboxShape& shape, const runtime::RunPlan& run,
                      const HostLayout& host, const SandboxIdentity& identity,
                      bool user_network = false,
                      const std::vector<HostLayout::Entry>& extra_etc = {});

}  // namespace paddock::init
