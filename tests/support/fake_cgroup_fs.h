#pragma once

// An in-memory cgroupfs for unit tests: directories, files with contents, a log of every write,
// and errors to inject (e.g. EBUSY on the first write to a file, as the kernel gives when the
// no-internal-process rule is violated).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/native/cgroup/cgroup_fs.h"

namespace paddock::testing {

class FakeCgroupFs final : public cgroup::CgroupFs {
 public:
  // A cgroup directory with the interface files a v2 kernel creates.
  void add_cgroup(const std::string& dir, const std::string& controllers = "memory pids cpu");
  void set(const std::string& path, std::string content) { files_[path] = std::move(content); }
  void fail_next_write(const std::string& path, int error) { write_errors_[path].push_back(error); }
  void make_read_only(const std::string& path) { read_only_.insert(path); }
  void remove_file_for_test(const std::string& path) { files_.erase(path); }

  core::Result<std::string> read(const std::string& path) override;
  core::Status write(const std::string& path, std::string_view content) override;
  core::Status make_dir(const std::string& path) override;
  core::Status remove_dir(const std::string& path) override;
  [[nodiscard]] bool exists(const std::string& path) override;
  [[nodiscard]] bool writable(const std::string& path) override;
  [[nodiscard]] std::vector<std::string> subdirectories(const std::string& path) override;

  [[nodiscard]] bool has_dir(const std::string& path) const { return dirs_.count(path) != 0; }
  [[nodiscard]] std::string content(const std::string& path) const;
  std::vector<std::pair<std::string, std::string>> writes;  // every successful write, in order

 private:
  std::set<std::string> dirs_;
  std::map<std::string, std::string> files_;
  std::map<std::string, std::vector<int>> write_errors_;
  std::set<std::string> read_only_;
};

}  // namespace paddock::testing
