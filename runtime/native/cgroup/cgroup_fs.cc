#include "runtime/native/cgroup/cgroup_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/unique_fd.h"

namespace paddock::cgroup {

core::Result<std::string> RealCgroupFs::read(const std::string& path) {
  core::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return core::system_error("reading " + path);
  std::string content;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fd.get(), buffer, sizeof buffer)) > 0) {
    content.append(buffer, static_cast<std::size_t>(got));
  }
  if (got < 0) return core::system_error("reading " + path);
  return content;
}

core::Status RealCgroupFs::write(const std::string& path, std::string_view content) {
  core::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return core::system_error("opening " + path);
  // cgroupfs takes each write as one command: never split it.
  if (::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    return core::system_error("writing '" + std::string(content) + "' to " + path);
  }
  return {};
}

core::Status RealCgroupFs::make_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0) return core::system_error("creating cgroup " + path);
  return {};
}

core::Status RealCgroupFs::remove_dir(const std::string& path) {
  if (rmdir(path.c_str()) != 0) return core::system_error("removing cgroup " + path);
  return {};
}

bool RealCgroupFs::exists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

bool RealCgroupFs::writable(const std::string& path) {
  return access(path.c_str(), W_OK) == 0;
}

std::vector<std::string> RealCgroupFs::subdirectories(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (entry->d_type == DT_DIR && name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

}  // namespace paddock::cgroup
