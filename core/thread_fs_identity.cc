#include "core/thread_fs_identity.h"

#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace paddock::core {
namespace {

// The capabilities that let root past file permissions and ownership: the ones the kernel itself
// drops from a thread whose fsuid leaves 0. Dropped explicitly too, so that acting as root's own
// uid (a folder root owns) grants root's ownership and never its overrides.
constexpr std::uint64_t kFileCapabilities = (1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) |
                                            (1ull << CAP_DAC_READ_SEARCH) | (1ull << CAP_FOWNER) |
                                            (1ull << CAP_FSETID) | (1ull << CAP_LINUX_IMMUTABLE) |
                                            (1ull << CAP_MKNOD) | (1ull << CAP_MAC_OVERRIDE);

// The raw calls, for the calling thread alone (pid 0 is the calling thread).
int get_capabilities(__user_cap_data_struct (&data)[2]) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  return static_cast<int>(syscall(SYS_capget, &header, data));
}

int set_capabilities(__user_cap_data_struct (&data)[2]) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  return static_cast<int>(syscall(SYS_capset, &header, data));
}

int set_thread_groups(const std::vector<gid_t>& groups) {
  return static_cast<int>(syscall(SYS_setgroups, groups.size(), groups.data()));
}

// setfsuid and setfsgid return the previous id and never fail visibly: an invalid id (-1) reads the
// current one back.
uid_t current_fsuid() {
  return static_cast<uid_t>(setfsuid(static_cast<uid_t>(-1)));
}
gid_t current_fsgid() {
  return static_cast<gid_t>(setfsgid(static_cast<gid_t>(-1)));
}

}  // namespace

ThreadFsIdentity::ThreadFsIdentity(uid_t uid, gid_t gid) {
  if (geteuid() != 0) return;
  __user_cap_data_struct capabilities[2] = {};
  int count = getgroups(0, nullptr);
  if (count >= 0) {
    saved_groups_.resize(static_cast<std::size_t>(count));
    count = getgroups(count, saved_groups_.data());
  }
  if (count < 0 || get_capabilities(capabilities) != 0) {
    status_ = system_error("reading this thread's identity to act as uid " + std::to_string(uid));
    return;
  }
  for (int i = 0; i < 2; ++i) {
    saved_effective_[i] = capabilities[i].effective;
    saved_permitted_[i] = capabilities[i].permitted;
    saved_inheritable_[i] = capabilities[i].inheritable;
  }
  saved_fsuid_ = current_fsuid();
  saved_fsgid_ = current_fsgid();
  changed_ = true;
  if (set_thread_groups({}) != 0) {
    status_ = system_error("dropping this thread's groups to act as uid " + std::to_string(uid));
    restore();
    return;
  }
  setfsgid(gid);
  setfsuid(uid);
  for (int i = 0; i < 2; ++i) {
    capabilities[i].effective &= ~static_cast<std::uint32_t>(kFileCapabilities >> (32 * i));
  }
  if (current_fsuid() != uid || current_fsgid() != gid || set_capabilities(capabilities) != 0) {
    status_ = Error{EPERM, "this server cannot act as uid " + std::to_string(uid) + " gid " +
                               std::to_string(gid) + " on the file system (setfsuid refused)"};
    restore();
  }
}

ThreadFsIdentity::~ThreadFsIdentity() {
  restore();
}

void ThreadFsIdentity::restore() {
  if (!changed_) return;
  changed_ = false;
  setfsuid(saved_fsuid_);
  setfsgid(saved_fsgid_);
  __user_cap_data_struct capabilities[2] = {};
  for (int i = 0; i < 2; ++i) {
    capabilities[i].effective = saved_effective_[i];
    capabilities[i].permitted = saved_permitted_[i];
    capabilities[i].inheritable = saved_inheritable_[i];
  }
  if (set_thread_groups(saved_groups_) != 0 || set_capabilities(capabilities) != 0 ||
      current_fsuid() != saved_fsuid_ || current_fsgid() != saved_fsgid_) {
    std::fputs("paddock: a thread could not take back its own file-system identity; stopping\n",
               stderr);
    std::abort();
  }
}

}  // namespace paddock::core
