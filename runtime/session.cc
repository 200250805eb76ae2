#include "runtime/session.h"

namespace paddock {

Result<std::unique_ptr<Session>> Backend::open_session(const SandboxSpec& /*spec*/) {
  return Error{ENOTSUP, "the " + std::string(name()) + " backend has no sessions"};
}

Status check_session_path(const std::string& path, bool allow_empty) {
  if (path.empty()) {
    if (allow_empty) return {};
    return invalid_input("the path is empty; name a file inside the work directory, e.g. data.csv");
  }
  if (path.size() > 4096) return invalid_input("the path is longer than 4096 bytes");
  if (path.find('\0') != std::string::npos) return invalid_input("the path contains a NUL byte");
  if (path.front() == '/') {
    return invalid_input("'" + path +
                         "' is absolute; paths are relative to the work directory, e.g. "
                         "out/data.csv");
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0) {
      return invalid_input("'" + path + "' leads out of the work directory (\"..\" is refused)");
    }
    start = end + 1;
  }
  return {};
}

Error session_path_error(const std::string& path, int error) {
  std::string what = "'" + path + "'";
  switch (error) {
    case ENOENT:
      return Error{error, what + ": no such file or directory in the work directory"};
    case EXDEV:
      return Error{error, what + " leads outside the work directory (a symlink or a mount)"};
    case ELOOP:
      return Error{error, what + " goes through a symlink, which writing does not follow"};
    case EINVAL:
      return Error{error, what + " is not a regular file"};
    case ENOTDIR:
      return Error{error, what + " is not a directory"};
    case EISDIR:
      return Error{error, what + " is a directory"};
    default:
      return system_error(what, error);
  }
}

}  // namespace paddock
