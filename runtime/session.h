#pragma once

// A sandbox that stays: commands run in it one after another and share its work directory
// (files, installed libraries) but nothing else. Each command starts from a clean process table
// and nothing it starts outlives it. Files are read and written by the sandbox user, confined
// beneath the work directory.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_tree.h"
#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/backend.h"
#include "runtime/run_plan.h"
#include "runtime/run_result.h"
#include "runtime/warm_interpreter.h"

namespace paddock {

struct ExecRequest {
  std::vector<std::string> argv;  // argv[0] is looked up in the sandbox's PATH
  std::vector<std::string> env;   // "K=V" on top of the session's environment
  int stdin_fd = -1;              // owned by the caller; -1 means /dev/null
  double wall_seconds = kDefaultWallSeconds;
  std::uint64_t output_bytes = 1ull << 20;
  bool stdout_to_stderr = false;  // an installer's or compiler's chatter is not the output
  bool network = false;           // user-mode networking for this command only (an installer)
  // With `network`: reach out only through the session's egress proxy, to these destinations
  // (an installer's package index; RunPlan::installer_allowed_hosts), not by user-mode
  // networking. The command's own environment must carry net::egress::proxy_env().
  std::vector<std::string> allowed_hosts;
  OutputCollection collect;
};

struct FileContent {
  std::string data;        // at most what was asked for
  std::uint64_t size = 0;  // of the whole file
};

struct FileEntry {
  std::string name;
  std::string type;  // "file", "directory", "symlink" or "other"
  std::uint64_t size = 0;
};

// What a session holds right now, for get_session.
struct SessionUsage {
  std::uint64_t disk_bytes = 0;  // used in the work directory's file system (its tmpfs)
  // The sandbox's processes now, paddock's own (init, the container's keeper, the helper that
  // counts) not counted: 0 between commands.
  std::uint32_t processes = 0;
};

// Told the bytes copied so far as a copy proceeds, so a reader (a hasher) can follow behind.
using CopyProgress = std::function<void(std::uint64_t copied)>;

// A live session's resident process, as its starter holds it: the write end of its stdin, and
// the read end of its stdout and stderr together.
struct ResidentProcess {
  UniqueFd input;
  UniqueFd output;
};

class Session {
 public:
  virtual ~Session() = default;
  // One command; other calls wait until it is done. An error of kind kSandboxGone: the sandbox
  // was gone before the command reached it, so nothing of it ran (a warm run then runs cold).
  [[nodiscard]] virtual Result<RunResult> exec(const ExecRequest& request,
                                               RunObserver& observer) = 0;
  // `files` written (as write_file writes them), then `request` run: a fresh call's code in a
  // warm sandbox. The default writes them one by one; the native session sends them with the
  // command, sparing a round trip to its init for each.
  [[nodiscard]] virtual Result<RunResult> exec_with_files(const std::vector<SandboxFile>& files,
                                                          const ExecRequest& request,
                                                          RunObserver& observer);
  // Paths are relative to the work directory (see check_session_path).
  [[nodiscard]] virtual Status write_file(const std::string& path, std::string_view content) = 0;
  // At most `max_bytes` from byte `offset` on (read_file's byte ranges); `size` is the whole
  // file's.
  [[nodiscard]] virtual Result<FileContent> read_file(const std::string& path,
                                                      std::uint64_t max_bytes,
                                                      std::uint64_t offset = 0) = 0;
  // Host files in and out (upload_file, download_file), under write_file's and read_file's
  // rules. `source_fd` is read from offset 0 for `size` bytes; the file is made with mode 0755
  // when `executable`, else 0644. The defaults go through write_file and read_file, holding the
  // bytes in memory; the native session copies in the kernel.
  [[nodiscard]] virtual Status copy_in(const std::string& path, int source_fd, std::uint64_t size,
                                       bool executable);
  // A regular file into `sink_fd` at its offset; one larger than `max_bytes` is refused (EFBIG)
  // before anything is copied. Returns the bytes copied.
  [[nodiscard]] virtual Result<std::uint64_t> copy_out(const std::string& path, int sink_fd,
                                                       std::uint64_t max_bytes,
                                                       const CopyProgress& progress);
  // The directory `path` and its parents (an empty folder uploaded). Default: ENOTSUP.
  [[nodiscard]] virtual Status make_directory(const std::string& path);
  // A symlink `path` -> `target` (not checked: it is resolved inside the sandbox only), its
  // parents made as needed: a kept session's links, restored. Default: ENOTSUP.
  [[nodiscard]] virtual Status make_symlink(const std::string& path, const std::string& target);
  // A hard link `path` to the regular file `existing` of the work directory, its parents made as
  // needed: a kept session's hard links, restored as one file. Default: ENOTSUP.
  [[nodiscard]] virtual Status make_hard_link(const std::string& path, const std::string& existing);
  // Walks the whole work directory (core/file_tree.h) for keeping it on disk, with no command
  // running. Mounts inside it (shares) are left out. Default: ENOTSUP (the backend keeps no
  // sessions on disk).
  // Folders nested deeper than kWorkDirectoryDepth stop the walk (ELOOP).
  [[nodiscard]] virtual Status walk_work_directory(const TreeVisitor& visit);
  static constexpr std::uint32_t kWorkDirectoryDepth = 64;
  // `path` empty for the work directory itself; at most `max_entries`, sorted by name.
  [[nodiscard]] virtual Result<std::vector<FileEntry>> list_files(const std::string& path,
                                                                  std::size_t max_entries) = 0;
  // Must answer while a command runs: it never waits for the command to end. A closed or
  // ended session is the error exec() would give.
  [[nodiscard]] virtual Result<SessionUsage> usage() = 0;

  // A live session's interpreter (runtime/live_kernel.h) lives in one resident process that,
  // unlike a command, stays after it is started: every sweep spares it and its children (the
  // kernel), and it is stopped while a command has a network. Backends that cannot keep one
  // refuse with ENOTSUP, and their sessions run each call as a new process.
  [[nodiscard]] virtual Result<ResidentProcess> start_resident(const ExecRequest& /*request*/) {
    return Error{ENOTSUP,
                 "this backend keeps no interpreter between calls: each call of a session runs "
                 "as a new process (only the native backend has live sessions)"};
  }
  // Kills every process but the resident and its children (what a cell started). Waits for it.
  [[nodiscard]] virtual Status sweep() { return {}; }
  // Kills the resident and everything else in the sandbox; the files stay.
  virtual void kill_resident() {}

  // A warm sandbox's interpreter (runtime/warm_interpreter.h), started in this unused sandbox;
  // returns once it is ready (its preload done), or with why it could not start. The next exec()
  // (or exec_with_files()) of its program is carried out by it: the command's streams and
  // environment are handed to it, and its timer starts then. Backends that cannot refuse with
  // ENOTSUP, and their warm sandboxes hold no interpreter.
  [[nodiscard]] virtual Status park(const WarmInterpreter& /*interpreter*/) {
    return Error{ENOTSUP, "this backend starts no interpreter before its call"};
  }

  // An idle session costs no CPU (--idle-freeze): freeze() stops every process of the sandbox,
  // killing none, so a live interpreter keeps its state; thaw() lets them run again. Memory
  // stays as it is and counted as before. Nothing else may be asked of a frozen session until
  // it is thawed (the session registry thaws before any use); closing it works frozen. Never
  // while a command or file operation runs: EBUSY then. Default: ENOTSUP (the container
  // backends freeze nothing), thaw() nothing, and frozen() false.
  [[nodiscard]] virtual Status freeze() {
    return Error{ENOTSUP, "this backend does not freeze idle sessions"};
  }
  [[nodiscard]] virtual Status thaw() { return {}; }
  [[nodiscard]] virtual bool frozen() const { return false; }

  // A preview's way into the sandbox (net/preview/forwarder.h): the factory of sockets made
  // in the sandbox's own network namespace, handed over once (the forwarder keeps it for every
  // preview of the session). ENOTSUP where the backend or the sandbox has none.
  [[nodiscard]] virtual Result<UniqueFd> take_preview_factory() {
    return Error{ENOTSUP, "this backend has no previews (only the native backend has them)"};
  }

  // Whether the sandbox is gone (killed from outside, out of memory, or closed): nothing more
  // will run in it. Answers at once.
  [[nodiscard]] virtual bool ended() { return false; }

  // Kills everything in the sandbox and removes it. Idempotent; the destructor does it too.
  virtual void close() = 0;
};

// A path a caller may name inside a session: relative, no "..", no NUL, not too long.
// `allow_empty` for "the work directory itself". The error says how to write it instead.
Status check_session_path(const std::string& path, bool allow_empty = false);

// What a refused or failed open of `path` means to the person who named it, by errno: ENOENT,
// EXDEV (leads outside the work directory), ELOOP (a symlink, which writing does not follow),
// EINVAL (not a regular file), ENOTDIR, EISDIR; others as the system says.
Error session_path_error(const std::string& path, int error);

}  // namespace paddock
