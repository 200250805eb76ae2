#include "runtime/session.h"

#include <unistd.h>

#include <cstring>

#include "core/write_all.h"

namespace paddock::runtime {
core::Result<RunResult> Session::exec_with_files(const std::vector<SandboxFile>& files,
                                                 const ExecRequest& request,
                                                 RunObserver& observer) {
  for (const auto& file : files) {
    if (auto wrote = write_file(file.path, file.content); !wrote) return wrote.error();
  }
  return exec(request, observer);
}

core::Status Session::copy_in(const std::string& path, int source_fd, std::uint64_t size,
                              bool /*executable*/) {
  std::string content(size, '\0');
  std::uint64_t got = 0;
  while (got < size) {
    ssize_t n = pread(source_fd, content.data() + got, size - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return core::system_error("reading the host file for '" + path + "'");
    if (n == 0) break;  // it shrank meanwhile
    got += static_cast<std::uint64_t>(n);
  }
  content.resize(got);
  return write_file(path, content);
}

core::Result<std::uint64_t> Session::copy_out(const std::string& path, int sink_fd,
                                              std::uint64_t max_bytes,
                                              const CopyProgress& progress) {
  auto file = read_file(path, max_bytes + 1);
  if (!file) return file.error();
  if (file->size > max_bytes) return core::Error{EFBIG, "'" + path + "' is larger than the cap"};
  if (int error = core::write_all(sink_fd, file->data); error != 0) {
    return core::system_error("writing the host copy of '" + path + "'", error);
  }
  if (progress) progress(file->data.size());
  return static_cast<std::uint64_t>(file->data.size());
}

core::Status Session::make_directory(const std::string& path) {
  return core::Error{ENOTSUP, "'" + path + "': this backend makes no empty folders"};
}

core::Result<std::unique_ptr<Session>> Backend::open_session(const SandboxShape& /*shape*/,
                                                             const RunPlan& /*base*/) {
  return core::Error{ENOTSUP, "the " + std::string(name()) + " backend has no sessions"};
}

core::Status check_session_path(const std::string& path, bool allow_empty) {
  if (path.empty()) {
    if (allow_empty) return {};
    return core::invalid_input(
        "the path is empty; name a file inside the work directory, e.g. data.csv");
  }
  if (path.size() > 4096) return core::invalid_input("the path is longer than 4096 bytes");
  if (path.find('\0') != std::string::npos)
    return core::invalid_input("the path contains a NUL byte");
  if (path.front() == '/') {
    return core::invalid_input("'" + path +
                               "' is absolute; paths are relative to the work directory, e.g. "
                               "out/data.csv");
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0) {
      return core::invalid_input("'" + path +
                                 "' leads out of the work directory (\"..\" is refused)");
    }
    start = end + 1;
  }
  return {};
}

core::Error session_path_error(const std::string& path, int error) {
  std::string what = "'" + path + "'";
  switch (error) {
    case ENOENT:
      return core::Error{error, what + ": no such file or directory in the work directory"};
    case EXDEV:
      return core::Error{error, what + " leads outside the work directory (a symlink or a mount)"};
    case ELOOP:
      return core::Error{error, what + " goes through a symlink, which writing does not follow"};
    case EINVAL:
      return core::Error{error, what + " is not a regular file"};
    case ENOTDIR:
      return core::Error{error, what + " is not a directory"};
    case EISDIR:
      return core::Error{error, what + " is a directory"};
    default:
      return core::system_error(what, error);
  }
}

}  // namespace paddock::runtime
