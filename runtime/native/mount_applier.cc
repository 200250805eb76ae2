#include "native/mount_applier.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace paddock {
namespace {

using Kind = MountStep::Kind;

constexpr const char* kStaging = "/tmp";  // where the new root is built; private to our namespace

// "/.paddock-oldroot" + host path, in a caller's buffer.
bool host_path(char (&buffer)[PATH_MAX], const std::string& path) {
  std::size_t prefix = std::strlen(kOldRoot);
  if (prefix + path.size() + 1 > sizeof buffer) return false;
  std::memcpy(buffer, kOldRoot, prefix);
  std::memcpy(buffer + prefix, path.c_str(), path.size() + 1);
  return true;
}

int ok_or_errno(int rc) { return rc == 0 ? 0 : errno; }

// Adds attributes to a mount (and, if recursive, to every mount below it) without touching the
// ones the kernel locked when the mount came from a more privileged namespace.
int set_attributes(const char* target, std::uint64_t attributes, bool recursive) {
  mount_attr attr{};
  attr.attr_set = attributes;
  if (syscall(SYS_mount_setattr, AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr,
              sizeof attr) == 0) {
    return 0;
  }
  if (errno != ENOSYS) return errno;
  // Kernels before 5.12: a bind remount that repeats the flags the mount already has.
  struct statvfs current {};
  if (statvfs(target, &current) != 0) return errno;
  unsigned long flags = MS_REMOUNT | MS_BIND;
  if ((current.f_flag & ST_NOEXEC) != 0) flags |= MS_NOEXEC;
  if ((current.f_flag & ST_NODEV) != 0 || (attributes & MOUNT_ATTR_NODEV) != 0) flags |= MS_NODEV;
  if ((current.f_flag & ST_NOSUID) != 0 || (attributes & MOUNT_ATTR_NOSUID) != 0) flags |= MS_NOSUID;
  if ((current.f_flag & ST_RDONLY) != 0 || (attributes & MOUNT_ATTR_RDONLY) != 0) flags |= MS_RDONLY;
  if ((current.f_flag & ST_NOATIME) != 0) flags |= MS_NOATIME;
  if ((current.f_flag & ST_NODIRATIME) != 0) flags |= MS_NODIRATIME;
  if ((current.f_flag & ST_RELATIME) != 0) flags |= MS_RELATIME;
  return ok_or_errno(mount(nullptr, target, nullptr, flags, nullptr));
}

int enter_new_root(const MountStep& step) {
  // Nothing we mount may propagate back to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  if (mount("tmpfs", kStaging, "tmpfs", MS_NOSUID | MS_NODEV, step.options.c_str()) != 0) {
    return errno;
  }
  char old_root[PATH_MAX];
  std::size_t staging_length = std::strlen(kStaging);
  std::memcpy(old_root, kStaging, staging_length);
  std::strcpy(old_root + staging_length, kOldRoot);
  if (mkdir(old_root, 0700) != 0) return errno;
  if (syscall(SYS_pivot_root, kStaging, old_root) != 0) return errno;
  return ok_or_errno(chdir("/"));
}

int make_target_like(const char* source, const char* target, bool* source_missing) {
  struct stat info {};
  if (stat(source, &info) != 0) {
    *source_missing = errno == ENOENT || errno == ENOTDIR;
    return errno;
  }
  if (S_ISDIR(info.st_mode)) {
    if (mkdir(target, 0755) != 0 && errno != EEXIST) return errno;
    return 0;
  }
  int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno == EEXIST ? 0 : errno;
  close(fd);
  return 0;
}

int bind(const MountStep& step) {
  char source[PATH_MAX];
  if (!host_path(source, step.source)) return ENAMETOOLONG;
  const char* target = step.target.c_str();
  if (step.optional) {
    // A symlink (such as /etc/localtime) is recreated, so it resolves inside the sandbox.
    struct stat info {};
    if (lstat(source, &info) != 0) return errno == ENOENT ? 0 : errno;
    if (S_ISLNK(info.st_mode)) {
      char link[PATH_MAX];
      ssize_t length = readlink(source, link, sizeof link - 1);
      if (length < 0) return errno;
      link[length] = '\0';
      return ok_or_errno(symlink(link, target));
    }
  }
  bool source_missing = false;
  if (int error = make_target_like(source, target, &source_missing); error != 0) {
    return step.optional && source_missing ? 0 : error;
  }
  if (mount(source, target, nullptr, MS_BIND | MS_REC, nullptr) != 0) return errno;
  std::uint64_t attributes = MOUNT_ATTR_NOSUID;
  if (!step.allow_devices) attributes |= MOUNT_ATTR_NODEV;
  if (step.read_only) attributes |= MOUNT_ATTR_RDONLY;
  return set_attributes(target, attributes, /*recursive=*/true);
}

bool exists(const char* path) {
  struct stat info {};
  return lstat(path, &info) == 0;
}

int write_file(const MountStep& step) {
  int fd = open(step.target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                step.mode);
  if (fd < 0) return errno;
  const char* data = step.content.data();
  std::size_t left = step.content.size();
  while (left > 0) {
    ssize_t written = write(fd, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      int error = errno;
      close(fd);
      return error;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  close(fd);
  return 0;
}

int apply(const MountStep& step) {
  const char* target = step.target.c_str();
  switch (step.kind) {
    case Kind::kEnterNewRoot: return enter_new_root(step);
    case Kind::kMakeDir:
      if (mkdir(target, step.mode) != 0 && errno != EEXIST) return errno;
      return 0;
    case Kind::kWriteFile: return write_file(step);
    case Kind::kSymlink: return ok_or_errno(symlink(step.content.c_str(), target));
    case Kind::kTmpfs:
      return ok_or_errno(
          mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, step.options.c_str()));
    case Kind::kBind: return bind(step);
    case Kind::kProc:
      return ok_or_errno(mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr));
    case Kind::kDevpts:
      return ok_or_errno(
          mount("devpts", target, "devpts", MS_NOSUID | MS_NOEXEC, step.options.c_str()));
    case Kind::kMaskWithNull:
      if (!exists(target)) return 0;
      if (mount("/dev/null", target, nullptr, MS_BIND, nullptr) != 0) return errno;
      return set_attributes(target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, false);
    case Kind::kMaskWithEmpty:
      if (!exists(target)) return 0;
      return ok_or_errno(mount("tmpfs", target, "tmpfs",
                               MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                               "size=4096,nr_inodes=2,mode=555"));
    case Kind::kBindSelfReadOnly:
      if (!exists(target)) return 0;
      if (mount(target, target, nullptr, MS_BIND | MS_REC, nullptr) != 0) return errno;
      return set_attributes(target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                            true);
    case Kind::kDetachOldRoot:
      if (umount2(kOldRoot, MNT_DETACH) != 0) return errno;
      return ok_or_errno(rmdir(kOldRoot));
    case Kind::kRemountReadOnly:
      return set_attributes(target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, false);
  }
  return EINVAL;
}

}  // namespace

int apply_mount_plan(const MountPlan& plan, int* failed_step) {
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    if (int error = apply(plan.steps[i]); error != 0) {
      *failed_step = static_cast<int>(i);
      return error;
    }
  }
  return 0;
}

}  // namespace paddock
