#include "runtime/native/init/staged_targets.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "core/beneath.h"

namespace paddock::init {
namespace {

// The staged root, opened once for every step's check instead of once per step (two system calls
// each, about 0.2 ms of a plan's 80 steps). Forgotten whenever another tree covers kStaging.
int g_staging_root = -1;

// The last directory check_target_parent found clean, as a staged path ("/tmp/etc"): the steps
// that follow in the same directory (a plan's /etc, /dev and /proc come as runs of them, about 70
// of its 80 steps) need not ask again, about 2 us each, until a mount covers it or an ancestor.
// Init's own steps cannot replace a directory found clean: none removes or renames one.
// Not beneath a caller's bind, though: its folder is on the host, where another process (or
// another sandbox it is bound into) can change it while the plan runs, so from the first bind
// of the caller's on, every step checks its own parent.
char g_clean_parent[PATH_MAX];
std::size_t g_clean_parent_length = 0;  // 0: none
bool g_callers_bind_mounted = false;

}  // namespace

void begin_target_checks() {
  g_callers_bind_mounted = false;
}

void note_callers_bind() {
  g_callers_bind_mounted = true;
}

void forget_staging_root() {
  if (g_staging_root >= 0) close(g_staging_root);
  g_staging_root = -1;
  g_clean_parent_length = 0;
}

void forget_clean_parent_under(const char* path) {
  std::size_t length = std::strlen(path);
  if (g_clean_parent_length >= length && std::memcmp(g_clean_parent, path, length) == 0 &&
      (g_clean_parent_length == length || g_clean_parent[length] == '/')) {
    g_clean_parent_length = 0;
  }
}

int check_target_parent(const char* target) {
  std::size_t prefix = std::strlen(kStaging);
  const char* last_slash = std::strrchr(target, '/');
  if (last_slash == nullptr || last_slash < target + prefix) return 0;
  char parent[PATH_MAX];
  std::size_t length = static_cast<std::size_t>(last_slash - (target + prefix));
  if (length == 0) return 0;  // directly below the root
  if (length + 2 > sizeof parent) return ENAMETOOLONG;
  auto staged_length = static_cast<std::size_t>(last_slash - target);
  if (!g_callers_bind_mounted && staged_length == g_clean_parent_length &&
      std::memcmp(g_clean_parent, target, staged_length) == 0) {
    return 0;
  }
  parent[0] = '.';
  std::memcpy(parent + 1, target + prefix, length);
  parent[length + 1] = '\0';
  if (g_staging_root < 0) {
    g_staging_root = open(kStaging, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (g_staging_root < 0) return errno;
  }
  int fd = core::open_beneath(g_staging_root, parent, O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
  if (fd < 0) return -fd;
  close(fd);
  if (!g_callers_bind_mounted) {
    std::memcpy(g_clean_parent, target, staged_length);
    g_clean_parent_length = staged_length;
  }
  return 0;
}

int check_target(const char* target, bool* exists) {
  if (int error = check_target_parent(target); error != 0) return error;
  struct stat info {};
  *exists = lstat(target, &info) == 0;
  if (*exists && S_ISLNK(info.st_mode)) return ELOOP;
  return 0;
}

}  // namespace paddock::init
