#pragma once

// The few file operations cgroup v2 management needs, behind an interface so that unit tests
// can check what is written where against an in-memory fake instead of a real cgroupfs.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace paddock::cgroup {

class CgroupFs {
 public:
  virtual ~CgroupFs() = default;
  virtual core::Result<std::string> read(const std::string& path) = 0;
  virtual core::Status write(const std::string& path, std::string_view content) = 0;
  virtual core::Status make_dir(const std::string& path) = 0;
  virtual core::Status remove_dir(const std::string& path) = 0;
  [[nodiscard]] virtual bool exists(const std::string& path) = 0;
  [[nodiscard]] virtual bool writable(const std::string& path) = 0;
  // Names of the subdirectories of `path`.
  [[nodiscard]] virtual std::vector<std::string> subdirectories(const std::string& path) = 0;
};

// The real thing: plain system calls on /sys/fs/cgroup (or wherever cgroup2 is mounted).
class RealCgroupFs final : public CgroupFs {
 public:
  core::Result<std::string> read(const std::string& path) override;
  core::Status write(const std::string& path, std::string_view content) override;
  core::Status make_dir(const std::string& path) override;
  core::Status remove_dir(const std::string& path) override;
  [[nodiscard]] bool exists(const std::string& path) override;
  [[nodiscard]] bool writable(const std::string& path) override;
  [[nodiscard]] std::vector<std::string> subdirectories(const std::string& path) override;
};

}  // namespace paddock::cgroup
