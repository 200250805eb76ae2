#pragma once

// The sandbox's file system as a list of steps, decided in the parent and applied in order by
// the child (mount_applier.h). Pure data: unit tests check a plan without mounting anything.
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
#include "sandbox_spec.h"

namespace paddock {

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

// What the host's root looks like, where the plan depends on it (probed, or given by tests).
struct HostLayout {
  struct Entry {
    enum class Type { kDirectory, kSymlink, kFile };
    std::string name;  // "bin", "lib64", "ssl", "ld.so.cache", ...
    Type type = Type::kDirectory;
    std::string content;  // symlink target, or file content (files are copied, not bound:
                          // a write into tmpfs is far cheaper than a mount)
  };
  std::vector<Entry> top_level;  // /bin, /sbin, /lib* that exist (directories or symlinks)
  std::vector<Entry> etc;        // allow-listed /etc entries that exist
  // The entries are a flattened image's (rootfs/image_flatten.h), not the host's: every
  // top-level directory (/usr among them) and every /etc entry, bound from the copy through the
  // fd init opened for it.
  bool flattened_image = false;
};

// Reads /bin, /sbin, /lib, /lib32, /lib64, /libx32 and the allow-listed /etc entries.
HostLayout probe_host_layout();

// An image (its layer directories, top first) whose /etc is a symlink or a file is refused:
// paddock writes the sandbox's /etc there, and reading or writing through an image's symlink
// would reach the host's files.
Status check_image_etc(const std::vector<std::string>& layers);

// The layout of a flattened image at `root`, minus what the sandbox makes itself (/etc's
// identity files, /dev, /proc, /tmp and the top of the work directory).
HostLayout probe_flattened_image(const std::string& root, const std::string& workdir);

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

// `user_network`: the sandbox may get user-mode networking (may_use_user_network), so it gets
// paddock's resolver configuration.
MountPlan plan_mounts(const SandboxSpec& spec, const HostLayout& host,
                      const SandboxIdentity& identity, bool user_network = false);

}  // namespace paddock
