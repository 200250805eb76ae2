#include "config/server_profile_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "core/beneath.h"
#include "core/files.h"
#include "core/unique_fd.h"

namespace paddock::config {
namespace {

core::Error too_large(const std::string& path) {
  return core::invalid_input(path + ": is over 1 MiB, too large for a server profile");
}

// Everything `fd` holds, up to one byte over the bound (so that a file that grew is refused too).
core::Result<std::string> read_bounded(int fd, const std::string& path) {
  std::string text;
  char buffer[16384];
  while (text.size() <= kMaxProfileBytes) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return core::system_error("cannot read server profile " + path);
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return too_large(path);
}

// Why opening a profile beneath its folder failed, in the user's words.
core::Error open_error(int err, const std::string& path, const std::string& directory) {
  if (err == EXDEV) {
    return core::invalid_input(path + ": is a symlink that leads out of " + directory +
                               "; put the profile itself there");
  }
  if (err == ENOENT) return core::invalid_input(path + ": is a symlink to nothing; remove it");
  if (err == ELOOP) return core::invalid_input(path + ": is a symlink loop; remove it");
  return core::system_error("cannot read server profile " + path, err);
}

}  // namespace

bool is_profile_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || std::isalnum(static_cast<unsigned char>(name[0])) == 0) {
    return false;
  }
  if (name.find("..") != std::string::npos) return false;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

core::Result<std::optional<std::string>> read_user_profile(const std::string& directory,
                                                           const std::string& name) {
  core::UniqueFd folder(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!folder.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    return core::system_error("cannot open the server profiles' folder " + directory);
  }
  std::string file = name + ".json";
  std::string path = directory + "/" + file;
  struct stat link {};
  if (::fstatat(folder.get(), file.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return core::system_error("cannot read server profile " + path);
  }
  // A FIFO or a device is refused before it is opened: opening one may block or act.
  if (!S_ISLNK(link.st_mode) && !S_ISREG(link.st_mode)) {
    return core::invalid_input(path + ": is not a regular file; a server profile is a JSON file");
  }
  // Beneath the folder: a symlink may name another profile there, never a file elsewhere.
  // O_NONBLOCK: a symlink to a FIFO there must not hang the start.
  core::UniqueFd fd(core::open_beneath(folder.get(), file.c_str(), O_RDONLY | O_NONBLOCK));
  if (!fd.valid()) return open_error(-fd.get(), path, directory);
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0)
    return core::system_error("cannot read server profile " + path);
  if (!S_ISREG(opened.st_mode)) {
    return core::invalid_input(path + ": is not a regular file; a server profile is a JSON file");
  }
  if (static_cast<std::size_t>(opened.st_size) > kMaxProfileBytes) return too_large(path);
  auto text = read_bounded(fd.get(), path);
  if (!text) return text.error();
  return std::optional<std::string>(std::move(*text));
}

std::vector<std::string> user_profile_names(const std::string& directory) {
  std::vector<std::string> names;
  for (const std::string& file : core::directory_names(directory)) {
    if (!file.ends_with(".json")) continue;
    std::string name = file.substr(0, file.size() - 5);
    if (name != "schema" && is_profile_name(name)) names.push_back(name);
  }
  return names;
}

}  // namespace paddock::config
