#pragma once

#include <fcntl.h>

#include <string>

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/native/cgroup/cgroup_manager.h"

namespace paddock::cgroup {

// One sandbox's cgroup: created before clone, read and removed after the run, and removed on
// every early return in between.
class SandboxCgroup {
 public:
  explicit SandboxCgroup(CgroupManager& manager) : manager_(manager) {}
  SandboxCgroup(const SandboxCgroup&) = delete;
  SandboxCgroup& operator=(const SandboxCgroup&) = delete;
  ~SandboxCgroup() {
    if (!directory_.empty()) (void)manager_.destroy(directory_);
  }

  core::Status create(const runtime::SandboxLimits& limits) {
    auto made = manager_.create_sandbox(limits);
    if (!made) return made.error();
    directory_ = *made;
    fd_.reset(open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd_.valid()) return core::system_error("opening " + directory_);
    return {};
  }
  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] const std::string& directory() const { return directory_; }

  // What the sandbox used; then the cgroup goes.
  CgroupUsage finish() {
    if (directory_.empty()) return {};
    CgroupUsage usage = manager_.usage(directory_);
    fd_.reset();
    (void)manager_.destroy(directory_);
    directory_.clear();
    return usage;
  }

 private:
  CgroupManager& manager_;
  std::string directory_;
  core::UniqueFd fd_;
};

}  // namespace paddock::cgroup
