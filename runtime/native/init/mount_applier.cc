#include "runtime/native/init/mount_applier.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "core/beneath.h"
#include "core/write_all.h"
#include "runtime/native/init/fixed_text.h"
#include "runtime/native/init/staged_targets.h"

namespace paddock::init {
namespace {

using Kind = MountStep::Kind;
using Protect = MountStep::Protect;

// On an image, paddock's own files and mount points are laid out here first, to become the
// overlay's upper layer: once the image's layers are mounted, their directories belong to ids
// the sandbox does not map, and nothing could be created in them any more.
constexpr const char* kUpper = "/tmp/.upper";
constexpr const char* kOverlayWork = "/tmp/.work";

// Where tree steps go: the upper layer until the overlay is mounted, else the staged root.
const char* g_prefix = kStaging;

// A path in a caller's stack buffer, so that the child never allocates.
class Path {
 public:
  // staging + sandbox path, e.g. "/tmp" + "/usr".
  static bool staged(Path& out, const std::string& sandbox_path) {
    return out.set(g_prefix, sandbox_path.c_str());
  }
  [[nodiscard]] const char* c_str() const { return buffer_; }

 private:
  bool set(const char* prefix, const char* rest) {
    std::size_t a = std::strlen(prefix), b = std::strlen(rest);
    if (a + b + 1 > sizeof buffer_) return false;
    std::memcpy(buffer_, prefix, a);
    std::memcpy(buffer_ + a, rest, b + 1);
    return true;
  }
  char buffer_[PATH_MAX];
};

int ok_or_errno(int rc) {
  return rc == 0 ? 0 : errno;
}

// Adds attributes to a mount (and, if recursive, to every mount below it) without touching the
// ones the kernel locked when the mount came from a more privileged namespace.
int set_attributes(const char* target, std::uint64_t attributes, bool recursive) {
  mount_attr attr{};
  attr.attr_set = attributes;
  if (syscall(SYS_mount_setattr, AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr,
              sizeof attr) == 0) {
    return 0;
  }
  if (errno != ENOSYS || recursive) return errno;
  // Kernels before 5.12: a bind remount that repeats the flags the mount already has.
  struct statvfs current {};
  if (statvfs(target, &current) != 0) return errno;
  unsigned long flags = MS_REMOUNT | MS_BIND;
  if ((current.f_flag & ST_NOEXEC) != 0) flags |= MS_NOEXEC;
  if ((current.f_flag & ST_NODEV) != 0 || (attributes & MOUNT_ATTR_NODEV) != 0) flags |= MS_NODEV;
  if ((current.f_flag & ST_NOSUID) != 0 || (attributes & MOUNT_ATTR_NOSUID) != 0)
    flags |= MS_NOSUID;
  if ((current.f_flag & ST_RDONLY) != 0 || (attributes & MOUNT_ATTR_RDONLY) != 0)
    flags |= MS_RDONLY;
  if ((current.f_flag & ST_NOATIME) != 0) flags |= MS_NOATIME;
  if ((current.f_flag & ST_NODIRATIME) != 0) flags |= MS_NODIRATIME;
  if ((current.f_flag & ST_RELATIME) != 0) flags |= MS_RELATIME;
  return ok_or_errno(mount(nullptr, target, nullptr, flags, nullptr));
}

int make_target_like(const struct stat& source, const char* target, bool exists) {
  if (exists) return 0;  // made earlier, e.g. before the root was sealed
  if (S_ISDIR(source.st_mode)) {
    if (mkdir(target, 0755) != 0 && errno != EEXIST) return errno;
    return 0;
  }
  int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

// The detached tree of a user bind (bind_slot >= 0), or -1 for a host path.
int tree_of(const MountStep& step, const int* bind_fds, std::size_t bind_count) {
  if (step.bind_slot < 0 || static_cast<std::size_t>(step.bind_slot) >= bind_count) return -1;
  return bind_fds[static_cast<std::size_t>(step.bind_slot)];
}

int stat_source(const MountStep& step, int tree, struct stat& info) {
  if (tree >= 0) return ok_or_errno(fstat(tree, &info));
  return ok_or_errno(stat(step.source.c_str(), &info));
}

std::uint64_t attributes_for(Protect protect) {
  switch (protect) {
    case Protect::kReadOnly:
      return MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    case Protect::kWritable:
      return MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    case Protect::kSealedLater:
    case Protect::kDevice:
      return 0;
  }
  return 0;
}

// A user bind: set the attributes on the detached tree itself, then attach it.
int attach_tree(int tree, Protect protect, const char* target) {
  mount_attr attr{};
  attr.attr_set = attributes_for(protect);
  if (attr.attr_set != 0 &&
      syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0) {
    return errno;
  }
  return ok_or_errno(static_cast<int>(
      syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH)));
}

// A path of the flattened image, resolved inside the image as if it were the root (its symlinks
// cannot lead onto the host), as a detached tree to attach. Returns the tree's fd or -errno.
int image_tree(const MountStep& step, const MountSources& sources) {
  if (static_cast<std::size_t>(step.layer_slot) >= sources.layer_count) return -EBADF;
  int fd = core::open_in_root(sources.layer_fds[step.layer_slot], step.source.c_str(), O_PATH);
  if (fd < 0) return fd;
  int tree = static_cast<int>(syscall(
      SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
  int error = errno;
  close(fd);
  return tree >= 0 ? tree : -error;
}

// The empty lower layer under every read-only overlay of a caller's folder (overlayfs wants two
// lower layers when it has no upper one): a detached read-only tmpfs, made on first use and
// closed when the plan is applied. -errno if it could not be made.
int g_empty_layer = -1;

int empty_layer() {
  if (g_empty_layer >= 0) return g_empty_layer;
  int context = static_cast<int>(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
  if (context < 0) return -errno;
  int mounted = -1;
  if (syscall(SYS_fsconfig, context, FSCONFIG_SET_STRING, "size", "4096", 0) == 0 &&
      syscall(SYS_fsconfig, context, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) == 0) {
    mounted = static_cast<int>(syscall(SYS_fsmount, context, FSMOUNT_CLOEXEC,
                                       MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
  }
  int error = errno;
  close(context);
  if (mounted < 0) return -error;
  g_empty_layer = mounted;
  return mounted;
}

void forget_empty_layer() {
  if (g_empty_layer >= 0) close(g_empty_layer);
  g_empty_layer = -1;
}

// A caller's folder, read-only: an overlay with the folder as its only real layer, not a bind.
// Through an overlay, a unix socket a host process listens on in the folder cannot be connected
// to (connect looks the socket up by the overlay's own inode, to which nothing is bound), and a
// FIFO is a pipe of the overlay's own that no host process has open: neither is a channel to
// the host, whatever ids the sandbox has. Files read as through a bind, changes on the host
// show, and writes fail with EROFS. ENODEV: the kernel has no overlayfs for a user namespace.
int overlay_read_only(int tree, const char* target) {
  int empty = empty_layer();
  if (empty < 0) return -empty;
  FixedText<96> options;
  options.append("userxattr,lowerdir=/proc/self/fd/");
  options.append_number(tree);
  options.append(":/proc/self/fd/");
  options.append_number(empty);
  if (options.overflow()) return ENAMETOOLONG;
  return ok_or_errno(
      mount("overlay", target, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, options.c_str()));
}

int bind(const MountStep& step, const MountSources& sources, const char* target, bool exists) {
  if (step.layer_slot >= 0) {
    int tree = image_tree(step, sources);
    if (tree < 0) return step.optional && tree == -ENOENT ? 0 : -tree;
    struct stat info {};
    int error = ok_or_errno(fstat(tree, &info));
    if (error == 0) error = make_target_like(info, target, exists);
    if (error == 0) error = attach_tree(tree, step.protect, target);
    close(tree);
    return error;
  }
  int tree = tree_of(step, sources.bind_fds, sources.bind_count);
  if (step.bind_slot >= 0 && tree < 0) return EBADF;
  FixedText<PATH_MAX> source;
  source.append(step.source.c_str());
  if (source.overflow()) return ENAMETOOLONG;
  struct stat info {};
  int error = ok_or_errno(tree >= 0 ? fstat(tree, &info) : stat(source.c_str(), &info));
  if (error != 0) return step.optional && error == ENOENT ? 0 : error;
  // A socket, FIFO or device node bound in would be a channel to the host, not a file.
  if (tree >= 0 && !S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) return EPERM;
  if (int made = make_target_like(info, target, exists); made != 0) return made;
  if (tree >= 0 && step.protect == Protect::kReadOnly && S_ISDIR(info.st_mode)) {
    // Without overlayfs (kernels before 5.11 in a user namespace) the bind stays a bind: the
    // sandbox's own ids are then what keeps a socket inside out of reach (docs/shares.md).
    int overlaid = overlay_read_only(tree, target);
    if (overlaid != ENODEV) return overlaid;
  }
  if (tree >= 0) return attach_tree(tree, step.protect, target);
  if (mount(source.c_str(), target, nullptr, MS_BIND | MS_REC, nullptr) != 0) return errno;
  std::uint64_t attributes = attributes_for(step.protect);
  return attributes == 0 ? 0 : set_attributes(target, attributes, true);
}

int write_file(const MountStep& step, const char* target) {
  int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, step.mode);
  if (fd < 0) return errno;
  int error = core::write_all(fd, step.content);
  close(fd);
  return error;
}

int stage_root(const MountStep& step) {
  // Nothing we mount may propagate back to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  return ok_or_errno(mount("tmpfs", kStaging, "tmpfs", MS_NOSUID | MS_NODEV, step.options.c_str()));
}

// pivot_root(".", "."), then detach what is now on top: the host's root, with every mount below
// it. The staged tree is "/" and nothing of the host stays reachable.
int pivot_root_here() {
  if (chdir(kStaging) != 0) return errno;
  if (syscall(SYS_pivot_root, ".", ".") != 0) return errno;
  if (umount2(".", MNT_DETACH) != 0) return errno;
  return ok_or_errno(chdir("/"));
}

// The image's layers as the root: an overlay of the layer directories (reached through init's
// fds as /proc/self/fd/N, opened while init could still read the store), with its upper
// directory on the staging tmpfs it covers. userxattr: in a user namespace overlayfs reads
// opaque directories from user.overlay.* (how the layer unpacker marks them).
int overlay_root(const MountSources& sources) {
  if (sources.layer_count == 0) return EINVAL;
  static FixedText<4096> options;
  options = {};
  auto append = [&](const char* text) { options.append(text); };
  auto append_number = [&](int value) { options.append_number(value); };
  append("userxattr,lowerdir=");
  for (std::size_t i = 0; i < sources.layer_count; ++i) {
    if (i > 0) append(":");
    append("/proc/self/fd/");
    append_number(sources.layer_fds[i]);
  }
  append(",upperdir=");
  append(kUpper);
  append(",workdir=");
  append(kOverlayWork);
  if (options.overflow()) return ENAMETOOLONG;
  g_prefix = kStaging;
  return ok_or_errno(mount("overlay", kStaging, "overlay", MS_NOSUID | MS_NODEV, options.c_str()));
}

// Before a step: its target checked (check_target, which sets *exists), and for a mount, what was
// checked through its target forgotten: the mount changes what every path through it resolves to.
int prepare_target(const MountStep& step, const char* path, bool* exists) {
  switch (step.kind) {
    case Kind::kMakeDir:
    case Kind::kWriteFile:
    case Kind::kSymlink:
    case Kind::kTmpfs:
    case Kind::kMakeMountPoint:
    case Kind::kBind:
    case Kind::kMaskWithNull:
    case Kind::kMaskWithEmpty:
    case Kind::kBindSelfReadOnly:
      if (int error = step.kind == Kind::kWriteFile || step.kind == Kind::kSymlink
                          ? check_target_parent(path)
                          : check_target(path, exists);
          error != 0) {
        return error;
      }
      break;
    default:
      break;
  }
  switch (step.kind) {
    case Kind::kTmpfs:
    case Kind::kBind:
    case Kind::kProc:
    case Kind::kDevpts:
    case Kind::kMaskWithNull:
    case Kind::kMaskWithEmpty:
    case Kind::kBindSelfReadOnly:
      forget_clean_parent_under(path);
      break;
    default:
      break;
  }
  return 0;
}

int apply(const MountStep& step, const MountSources& sources) {
  const int* bind_fds = sources.bind_fds;
  std::size_t bind_count = sources.bind_count;
  Path target;
  if (!Path::staged(target, step.target)) return ENAMETOOLONG;
  const char* path = target.c_str();
  bool exists = false;  // set by check_target
  if (int error = prepare_target(step, path, &exists); error != 0) return error;
  switch (step.kind) {
    case Kind::kStageRoot:
      return stage_root(step);
    case Kind::kOverlayRoot:
      return overlay_root(sources);
    case Kind::kMakeDir:
      if (mkdir(path, step.mode) != 0 && errno != EEXIST) return errno;
      return 0;
    case Kind::kWriteFile:
      return write_file(step, path);
    case Kind::kSymlink:
      return ok_or_errno(symlink(step.content.c_str(), path));
    case Kind::kTmpfs:
      return ok_or_errno(mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, step.options.c_str()));
    case Kind::kMakeMountPoint: {
      struct stat info {};
      if (int error = stat_source(step, tree_of(step, bind_fds, bind_count), info); error != 0) {
        return error;
      }
      return make_target_like(info, path, exists);
    }
    case Kind::kBind:
      return bind(step, sources, path, exists);
    case Kind::kProc:
      return ok_or_errno(mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr));
    case Kind::kDevpts:
      return ok_or_errno(
          mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC, step.options.c_str()));
    case Kind::kMaskWithNull:
      if (!exists) return 0;
      if (mount("/dev/null", path, nullptr, MS_BIND, nullptr) != 0) return errno;
      return set_attributes(path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, false);
    case Kind::kMaskWithEmpty:
      if (!exists) return 0;
      return ok_or_errno(mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                               "size=4096,nr_inodes=2,mode=555"));
    case Kind::kBindSelfReadOnly:
      if (!exists) return 0;
      if (mount(path, path, nullptr, MS_BIND | MS_REC, nullptr) != 0) return errno;
      return set_attributes(path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
    case Kind::kSeal:
      return set_attributes(path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
    case Kind::kRemountReadOnly:
      return set_attributes(path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, false);
    case Kind::kPivotRoot:
      return pivot_root_here();
  }
  return EINVAL;
}

}  // namespace

int apply_mount_plan(const MountPlan& plan, const MountSources& sources, int* failed_step) {
  begin_target_checks();
  bool overlay = false;
  for (const auto& step : plan.steps) overlay = overlay || step.kind == Kind::kOverlayRoot;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    Kind kind = plan.steps[i].kind;
    if (plan.steps[i].bind_slot >= 0) note_callers_bind();
    if (kind == Kind::kStageRoot || kind == Kind::kOverlayRoot || kind == Kind::kPivotRoot) {
      forget_staging_root();
    }
    int error = apply(plan.steps[i], sources);
    if (error == 0 && overlay && plan.steps[i].kind == Kind::kStageRoot) {
      if (mkdir(kUpper, 0755) != 0 || mkdir(kOverlayWork, 0700) != 0) error = errno;
      g_prefix = kUpper;
    }
    if (error != 0) {
      forget_staging_root();
      forget_empty_layer();
      *failed_step = static_cast<int>(i);
      return error;
    }
  }
  forget_staging_root();
  forget_empty_layer();
  return 0;
}

}  // namespace paddock::init
