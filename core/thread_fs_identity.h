#pragma once

// The calling thread's file-system identity, changed for a while: its opens, creations, renames
// and removals are checked as another user's (that user's fsuid and fsgid, no supplementary
// groups, and none of root's file capabilities), while the rest of the process stays as it is.
// A root process acting on a user's files for someone else (a model) does there only what the
// user could: otherwise it is a confused deputy, reading and writing with root's privileges.
//
// Linux keeps these per thread: setfsuid and setfsgid are per-thread system calls, and so are
// the raw setgroups and capset (glibc's setgroups() changes every thread of the process, so it
// is not used). So the object must end on the thread that made it, and that thread must do
// nothing else meanwhile. A process that is not root acts as its own user already: then
// nothing changes.

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "core/result.h"

namespace paddock::core {

class ThreadFsIdentity {
 public:
  // Acts as uid:gid until destroyed; status() says whether it could.
  ThreadFsIdentity(uid_t uid, gid_t gid);
  // Back to the thread's own identity. Failing that, the process aborts: a thread left with another
  // user's identity would serve every later call with it.
  ~ThreadFsIdentity();
  ThreadFsIdentity(const ThreadFsIdentity&) = delete;
  ThreadFsIdentity& operator=(const ThreadFsIdentity&) = delete;

  // Failed: no access was made as anyone, and the caller must not go on.
  [[nodiscard]] const Status& status() const { return status_; }

 private:
  void restore();

  bool changed_ = false;
  Status status_;
  uid_t saved_fsuid_ = 0;
  gid_t saved_fsgid_ = 0;
  std::vector<gid_t> saved_groups_;
  std::uint32_t saved_effective_[2] = {0, 0};
  std::uint32_t saved_permitted_[2] = {0, 0};
  std::uint32_t saved_inheritable_[2] = {0, 0};
};

}  // namespace paddock::core
