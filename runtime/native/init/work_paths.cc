// Files and folders made beneath the work directory by init, as the sandbox user: the caller's
// late files, a command's files and a session's kOpen requests. Each lookup is confined beneath
// the folder before it and follows no symlink, whatever the sandbox's code left there.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/beneath.h"
#include "runtime/native/init/child.h"
#include "runtime/native/init/child_parts.h"

namespace paddock::init {

using child_parts::kResolve;

namespace {

// Walks `path` one component at a time, making missing directories; each step is confined
// beneath the directory before it and follows no symlink, so nothing is made outside. Returns
// an O_PATH fd of the last directory (or `work`) and leaves *last at the final component.
int make_parents(int work, char* path, char** last) {
  int directory = work;
  char* component = path;
  for (char* slash; (slash = std::strchr(component, '/')) != nullptr; component = slash + 1) {
    *slash = '\0';
    if (*component == '\0') continue;
    if (mkdirat(directory, component, 0755) != 0 && errno != EEXIST) {
      int error = -errno;
      if (directory != work) close(directory);
      return error;
    }
    int next = core::open_beneath(directory, component, O_PATH | O_DIRECTORY,
                                  kResolve | RESOLVE_NO_SYMLINKS);
    if (directory != work) close(directory);
    if (next < 0) return next;
    directory = next;
  }
  *last = component;
  return directory;
}

}  // namespace

int open_for_write(int work, char* path, mode_t mode) {
  char* name = nullptr;
  int directory = make_parents(work, path, &name);
  if (directory < 0) return directory;
  int fd = core::open_beneath(directory, name, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK,
                              kResolve | RESOLVE_NO_SYMLINKS, mode);
  if (directory != work) close(directory);
  return fd;
}

int make_directories(int work, char* path) {
  char* name = nullptr;
  int directory = make_parents(work, path, &name);
  if (directory < 0) return directory;
  int fd = -EINVAL;
  if (*name == '\0' || mkdirat(directory, name, 0755) == 0 || errno == EEXIST) {
    fd = core::open_beneath(directory, *name == '\0' ? "." : name, O_RDONLY | O_DIRECTORY,
                            kResolve | RESOLVE_NO_SYMLINKS);
  } else {
    fd = -errno;
  }
  if (directory != work) close(directory);
  return fd;
}

int make_symlink(int work, char* path, const char* target) {
  char* name = nullptr;
  int directory = make_parents(work, path, &name);
  if (directory < 0) return directory;
  int fd = -EINVAL;
  if (*name != '\0' && symlinkat(target, directory, name) == 0) {
    fd = core::open_beneath(directory, ".", O_RDONLY | O_DIRECTORY, kResolve);
  } else if (*name != '\0') {
    fd = -errno;
  }
  if (directory != work) close(directory);
  return fd;
}

int make_hard_link(int work, char* path, char* existing) {
  // The existing file is reached by lookups that follow no symlink, so the link is always to a
  // regular file beneath the work directory.
  int file = core::open_beneath(work, existing, O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
                                kResolve | RESOLVE_NO_SYMLINKS);
  if (file < 0) return file;
  struct stat info {};
  if (fstat(file, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(file);
    return -EINVAL;
  }
  // linkat from the open fd (AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH; the existing
  // name's own folder, opened the same confined way, does not.
  int from = work;
  char* existing_name = existing;
  if (char* slash = std::strrchr(existing, '/'); slash != nullptr) {
    *slash = '\0';
    existing_name = slash + 1;
    from = core::open_beneath(work, existing, O_PATH | O_DIRECTORY, kResolve | RESOLVE_NO_SYMLINKS);
  }
  char* name = nullptr;
  int directory = from < 0 ? from : make_parents(work, path, &name);
  int error = directory < 0 ? directory : 0;
  if (error == 0 && *name == '\0') error = -EINVAL;
  if (error == 0 && linkat(from, existing_name, directory, name, 0) != 0) error = -errno;
  if (from >= 0 && from != work) close(from);
  if (directory >= 0 && directory != work) close(directory);
  if (error != 0) {
    close(file);
    return error;
  }
  return file;
}

}  // namespace paddock::init
