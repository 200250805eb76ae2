#include "state/server_home.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/unique_fd.h"

namespace paddock::state {
namespace {

constexpr const char* kInstalledFile = "installed";

// Makes `path` when missing, then checks what is there: a folder, no symlink, owned by `uid`,
// and (paddock's own folders) 0700.
core::Status own_folder(const std::string& path, uid_t uid, bool private_to_owner) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return core::system_error("making " + path);
  core::UniqueFd folder(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!folder.valid()) {
    return core::system_error(path +
                              " is not a folder of its own (a symlink or a file is refused)");
  }
  struct stat info {};
  if (fstat(folder.get(), &info) != 0) return core::system_error("reading " + path);
  if (info.st_uid != uid) {
    return core::invalid_input(
        path + " belongs to uid " + std::to_string(info.st_uid) + ", not uid " +
        std::to_string(uid) +
        "; a wrapped server's home is written by one owner (remove it, or give "
        "read-write shares of that owner)");
  }
  if (private_to_owner && (info.st_mode & 077) != 0 && fchmod(folder.get(), 0700) != 0) {
    return core::system_error("making " + path + " private");
  }
  return {};
}

// Root made the home: it belongs to the owner the sandbox writes as.
core::Status hand_over(const std::string& path, HomeOwner owner) {
  if (geteuid() != 0) return {};
  core::UniqueFd folder(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!folder.valid() || fstat(folder.get(), &info) != 0)
    return core::system_error("opening " + path);
  if (info.st_uid == 0 && fchown(folder.get(), owner.uid, owner.gid) != 0) {
    return core::system_error("giving " + path + " to uid " + std::to_string(owner.uid));
  }
  return {};
}

std::string installed_text(const std::string& folder) {
  core::UniqueFd file(
      open((folder + "/" + kInstalledFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!file.valid()) return {};
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = read(file.get(), buffer, sizeof buffer)) > 0 && text.size() < 65536;) {
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

}  // namespace

core::Result<ServerHome> ServerHome::open_kept(const std::string& state_dir,
                                               const std::string& name, HomeOwner owner) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return core::invalid_input("'" + name + "' cannot name a server's home");
  }
  uid_t me = geteuid();
  std::error_code ignored;
  std::filesystem::create_directories(state_dir, ignored);
  std::string servers = state_dir + "/servers";
  std::string folder = servers + "/" + name;
  std::string home = folder + "/home";
  for (const auto& [path, mine] : {std::pair{state_dir, true}, {servers, true}, {folder, true}}) {
    if (auto made = own_folder(path, me, mine); !made) return made.error();
  }
  if (mkdir(home.c_str(), 0700) != 0 && errno != EEXIST)
    return core::system_error("making " + home);
  if (auto given = hand_over(home, owner); !given) return given.error();
  if (auto checked = own_folder(home, me == 0 ? owner.uid : me, false); !checked) {
    return checked.error();
  }
  return ServerHome(folder, home, false);
}

core::Result<ServerHome> ServerHome::temporary(HomeOwner owner) {
  const char* base = getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && base[0] == '/' ? base : "/tmp") + "/paddock-wrap-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return core::system_error("making a temporary home");
  ServerHome made(pattern, pattern + "/home", true);
  if (mkdir(made.home_.c_str(), 0700) != 0) return core::system_error("making " + made.home_);
  if (auto given = hand_over(made.home_, owner); !given) return given.error();
  return made;
}

ServerHome::ServerHome(ServerHome&& other) noexcept
    : folder_(std::move(other.folder_)),
      home_(std::move(other.home_)),
      temporary_(other.temporary_) {
  other.temporary_ = false;
}

ServerHome::~ServerHome() {
  // remove_all removes a symlink the server left, never what it points at.
  std::error_code ignored;
  if (temporary_) std::filesystem::remove_all(folder_, ignored);
}

bool ServerHome::installed(const std::string& spec) const {
  std::istringstream lines(installed_text(folder_));
  for (std::string line; std::getline(lines, line);) {
    if (line == spec) return true;
  }
  return false;
}

core::Status ServerHome::mark_installed(const std::string& spec) {
  std::string path = folder_ + "/" + kInstalledFile;
  std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << installed_text(folder_) << spec << "\n";
    if (!out) return core::system_error("writing " + temporary);
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) return core::system_error("writing " + path);
  return {};
}

}  // namespace paddock::state
