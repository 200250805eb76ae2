#include "support/fake_cgroup_fs.h"

#include <cerrno>

namespace paddock::testing {

void FakeCgroupFs::add_cgroup(const std::string& dir, const std::string& controllers) {
  dirs_.insert(dir);
  for (const char* file : {"cgroup.procs", "cgroup.subtree_control", "cgroup.kill", "cgroup.events",
                           "memory.max", "memory.swap.max", "memory.high", "memory.events",
                           "memory.peak", "pids.max", "cpu.max", "cpu.stat"}) {
    files_.emplace(dir + "/" + file, "");
  }
  files_[dir + "/cgroup.controllers"] = controllers;
}

core::Result<std::string> FakeCgroupFs::read(const std::string& path) {
  auto found = files_.find(path);
  if (found == files_.end()) return core::Error{ENOENT, "no such file " + path};
  return found->second;
}

core::Status FakeCgroupFs::write(const std::string& path, std::string_view content) {
  auto errors = write_errors_.find(path);
  if (errors != write_errors_.end() && !errors->second.empty()) {
    int error = errors->second.front();
    errors->second.erase(errors->second.begin());
    return core::Error{error, "injected error writing " + path};
  }
  if (files_.find(path) == files_.end()) return core::Error{ENOENT, "no such file " + path};
  if (read_only_.count(path) != 0) return core::Error{EACCES, "read-only " + path};
  files_[path] = std::string(content);
  writes.emplace_back(path, std::string(content));
  return {};
}

core::Status FakeCgroupFs::make_dir(const std::string& path) {
  if (dirs_.count(path) != 0) return core::Error{EEXIST, "exists " + path};
  // A new cgroup inherits the parent's enabled controllers as its available ones.
  std::string parent = path.substr(0, path.rfind('/'));
  add_cgroup(path, content(parent + "/cgroup.subtree_control"));
  return {};
}

core::Status FakeCgroupFs::remove_dir(const std::string& path) {
  if (dirs_.erase(path) == 0) return core::Error{ENOENT, "no such cgroup " + path};
  for (auto it = files_.begin(); it != files_.end();) {
    it = it->first.rfind(path + "/", 0) == 0 ? files_.erase(it) : std::next(it);
  }
  return {};
}

bool FakeCgroupFs::exists(const std::string& path) {
  return dirs_.count(path) != 0 || files_.count(path) != 0;
}

bool FakeCgroupFs::writable(const std::string& path) {
  return exists(path) && read_only_.count(path) == 0;
}

std::vector<std::string> FakeCgroupFs::subdirectories(const std::string& path) {
  std::vector<std::string> names;
  for (const auto& dir : dirs_) {
    if (dir.rfind(path + "/", 0) == 0 && dir.find('/', path.size() + 1) == std::string::npos) {
      names.push_back(dir.substr(path.size() + 1));
    }
  }
  return names;
}

std::string FakeCgroupFs::content(const std::string& path) const {
  auto found = files_.find(path);
  return found == files_.end() ? "" : found->second;
}

}  // namespace paddock::testing
