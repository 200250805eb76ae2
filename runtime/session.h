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
#include "runtime/session_abilities.h"
#include "runtime/warm_interpreter.h"

namespace paddock::runtime {

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
  // The proportional set size of all its processes, paddock's own among them: what closing it
  // gives back (runtime/native/process_memory.h). 0 where the backend does not measure it.
  std::uint64_t memory_bytes = 0;
};

// Told the bytes copied so far as a copy proceeds, so a reader (a hasher) can follow behind.
using CopyProgress = std::function<void(std::uint64_t copied)>;

class Session {
 public:
  virtual ~Session() = default;
  // Who is asked about a destination the sandbox's egress allowlist does not cover, from now
  // on (null: refused, as between calls). A backend without an egress proxy ignores it.
  virtual void set_consent(std::shared_ptr<net::egress::HostConsent> consent) { (void)consent; }
  // What the sandbox's egress proxy did since the last command or call to this (a live cell
  // runs no command: its result takes it from here). Empty without a proxy.
  [[nodiscard]] virtual net::egress::EgressRecord take_network_record() { return {}; }
  // One command; other calls wait until it is done. An error of kind kSandboxGone: the sandbox
  // was gone before the command reached it, so nothing of it ran (a warm run then runs cold).
  [[nodiscard]] virtual core::Result<RunResult> exec(const ExecRequest& request,
                                                     RunObserver& observer) = 0;
  // `files` written (as write_file writes them), then `request` run: a fresh call's code in a
  // warm sandbox. The default writes them one by one; the native session sends them with the
  // command, sparing a round trip to its init for each.
  [[nodiscard]] virtual core::Result<RunResult> exec_with_files(
      const std::vector<SandboxFile>& files, const ExecRequest& request, RunObserver& observer);
  // Paths are relative to the work directory (see check_session_path).
  [[nodiscard]] virtual core::Status write_file(const std::string& path,
                                                std::string_view content) = 0;
  // At most `max_bytes` from byte `offset` on (read_file's byte ranges); `size` is the whole
  // file's.
  [[nodiscard]] virtual core::Result<FileContent> read_file(const std::string& path,
                                                            std::uint64_t max_bytes,
                                                            std::uint64_t offset = 0) = 0;
  // Host files in and out (upload_file, download_file), under write_file's and read_file's
  // rules. `source_fd` is read from offset 0 for `size` bytes; the file is made with mode 0755
  // when `executable`, else 0644. The defaults go through write_file and read_file, holding the
  // bytes in memory; the native session copies in the kernel.
  [[nodiscard]] virtual core::Status copy_in(const std::string& path, int source_fd,
                                             std::uint64_t size, bool executable);
  // A regular file into `sink_fd` at its offset; one larger than `max_bytes` is refused (EFBIG)
  // before anything is copied. Returns the bytes copied.
  [[nodiscard]] virtual core::Result<std::uint64_t> copy_out(const std::string& path, int sink_fd,
                                                             std::uint64_t max_bytes,
                                                             const CopyProgress& progress);
  // The directory `path` and its parents (an empty folder uploaded). Default: ENOTSUP.
  [[nodiscard]] virtual core::Status make_directory(const std::string& path);
  // `path` empty for the work directory itself; at most `max_entries`, sorted by name.
  [[nodiscard]] virtual core::Result<std::vector<FileEntry>> list_files(
      const std::string& path, std::size_t max_entries) = 0;
  // Must answer while a command runs: it never waits for the command to end. A closed or
  // ended session is the error exec() would give.
  [[nodiscard]] virtual core::Result<SessionUsage> usage() = 0;

  // The abilities this session has beyond the above (runtime/session_abilities.h), each null
  // where its backend has none.
  [[nodiscard]] virtual WorkTreeAccess* work_tree() { return nullptr; }
  [[nodiscard]] virtual ResidentHost* resident() { return nullptr; }
  [[nodiscard]] virtual InterpreterParking* parking() { return nullptr; }
  [[nodiscard]] virtual IdleFreezing* freezing() { return nullptr; }
  [[nodiscard]] virtual PreviewSockets* previews() { return nullptr; }

  // Whether the sandbox is gone (killed from outside, out of memory, or closed): nothing more
  // will run in it. Answers at once.
  [[nodiscard]] virtual bool ended() { return false; }

  // Kills everything in the sandbox and removes it. Idempotent; the destructor does it too.
  virtual void close() = 0;
};

// Whether `session` is frozen now (IdleFreezing); a session that cannot freeze never is.
inline bool is_frozen(Session& session) {
  IdleFreezing* freezing = session.freezing();
  return freezing != nullptr && freezing->frozen();
}

// A path a caller may name inside a session: relative, no "..", no NUL, not too long.
// `allow_empty` for "the work directory itself". The error says how to write it instead.
core::Status check_session_path(const std::string& path, bool allow_empty = false);

// What a refused or failed open of `path` means to the person who named it, by errno: ENOENT,
// EXDEV (leads outside the work directory), ELOOP (a symlink, which writing does not follow),
// EINVAL (not a regular file), ENOTDIR, EISDIR; others as the system says.
core::Error session_path_error(const std::string& path, int error);

}  // namespace paddock::runtime
