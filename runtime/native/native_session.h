#pragma once

// A native session: a sandbox whose init stays and serves the parent (session_init.cc). Its
// work directory, and everything installed there, lives as long as the session.

#include <atomic>
#include <memory>
#include <mutex>

#include "core/result.h"
#include "runtime/native/init/session_channel.h"
#include "runtime/native/sandbox_launch.h"
#include "runtime/session.h"

namespace paddock {

// Has every ability a session may have (runtime/session_abilities.h).
class NativeSession final : public Session,
                            public WorkTreeAccess,
                            public ResidentHost,
                            public InterpreterParking,
                            public IdleFreezing,
                            public PreviewSockets {
 public:
  // `base`: what every command starts from (its environment and directory).
  static Result<std::unique_ptr<Session>> open(const SandboxShape& shape, const RunPlan& base,
                                               const net::egress::SecretBroker& broker = {});
  ~NativeSession() override { close(); }

  Result<RunResult> exec(const ExecRequest& request, RunObserver& observer) override;
  Result<RunResult> exec_with_files(const std::vector<SandboxFile>& files,
                                    const ExecRequest& request, RunObserver& observer) override;
  Status write_file(const std::string& path, std::string_view content) override;
  Result<FileContent> read_file(const std::string& path, std::uint64_t max_bytes,
                                std::uint64_t offset) override;
  Status copy_in(const std::string& path, int source_fd, std::uint64_t size,
                 bool executable) override;
  Result<std::uint64_t> copy_out(const std::string& path, int sink_fd, std::uint64_t max_bytes,
                                 const CopyProgress& progress) override;
  Status make_directory(const std::string& path) override;
  Status make_symlink(const std::string& path, const std::string& target) override;
  Status make_hard_link(const std::string& path, const std::string& existing) override;
  Status walk_work_directory(const TreeVisitor& visit) override;
  Result<std::vector<FileEntry>> list_files(const std::string& path,
                                            std::size_t max_entries) override;
  Result<SessionUsage> usage() override;
  Result<ResidentProcess> start_resident(const ExecRequest& request) override;
  Status park(const WarmInterpreter& interpreter) override;
  Status sweep() override;
  void kill_resident() override;
  // session_freeze.cc: the sandbox's cgroup frozen where it has one, else init's kStop.
  Status freeze() override;
  Status thaw() override;
  bool frozen() const override { return frozen_ != Frozen::kNo; }
  bool ended() override { return !check_alive(); }
  Result<UniqueFd> take_preview_factory() override;
  void close() override;

  WorkTreeAccess* work_tree() override { return this; }
  ResidentHost* resident() override { return this; }
  InterpreterParking* parking() override { return this; }
  IdleFreezing* freezing() override { return this; }
  PreviewSockets* previews() override { return this; }

 private:
  NativeSession(SandboxShape shape, RunPlan base, std::unique_ptr<LaunchedSandbox> launched)
      : shape_(std::move(shape)), base_(std::move(base)), launched_(std::move(launched)) {}
  // One attempt; `refused` as in with_image_root_fallback.
  static Result<std::unique_ptr<Session>> open_once(const SandboxShape& shape, const RunPlan& base,
                                                    const net::egress::SecretBroker& broker,
                                                    bool& refused);
  // Waits for init to finish setting up and send its work directory.
  Status wait_until_ready(bool& refused);
  // An fd of `path` opened by init as the sandbox user (see SessionOpenMode).
  Result<UniqueFd> open_inside(const std::string& path, SessionOpenMode mode,
                               const std::string& target = "");
  // A regular file opened inside for reading, and its size. Called with mutex_ held.
  Result<UniqueFd> open_to_read(const std::string& path, std::uint64_t* size);
  Status check_alive() const;
  // The kExec or kStartResident packet for a command: `files` (kExec only), argv, then the
  // session's environment merged with the request's. E2BIG when it does not fit in one.
  Result<std::unique_ptr<SessionRequest>> command_packet(
      SessionRequestKind kind, const ExecRequest& request,
      const std::vector<SandboxFile>& files = {}) const;
  Result<RunResult> exec_command(const ExecRequest& request, const std::vector<SandboxFile>& files,
                                 RunObserver& observer);
  // What a command with network borrows, given back when it goes out of scope.
  struct LentNetwork;
  // Gives the command the network `request` asks for, if any: through the proxy with its own
  // allowlist, or user-mode networking, the live interpreter stopped meanwhile.
  Status lend_network(const ExecRequest& request, LentNetwork& lent);
  // The session's cgroup as the command that just ended left it: only its own OOM kill and
  // pids refusals count.
  CgroupOutcome command_cgroup();
  // The environment a command of `request` starts with: the session's, the request's over it,
  // and the egress proxy's last where the sandbox has one.
  [[nodiscard]] std::vector<std::string> command_env(const ExecRequest& request) const;
  // Hands the command's streams and environment to the parked interpreter (park()): it runs the
  // command. kSandboxGone when it is gone, so that nothing of the call ran.
  Status send_to_parked(const ExecRequest& request, const int (&fds)[3]);
  // Sends a request without data or fds; then, if `reply` is not kGo, waits for that answer.
  Result<ChildMessage> ask(SessionRequestKind kind, ChildMessageKind reply);
  // The next message of kind `reply` from init (others, such as kResidentExited, pass by), with
  // the fd that rode along in `passed`.
  Result<ChildMessage> await_reply(ChildMessageKind reply, UniqueFd* passed);

  std::mutex mutex_;  // one command or file operation at a time
  // Held by close() while the sandbox goes, and by usage(), which must not wait for mutex_ (a
  // command holds it until it ends).
  std::mutex closing_mutex_;
  SandboxShape shape_;
  RunPlan base_;
  std::unique_ptr<LaunchedSandbox> launched_;
  UniqueFd workdir_;
  UniqueFd killer_;           // a pidfd of init, to kill it without the lock
  UniqueFd preview_factory_;  // init's kSocketFactory, until take_preview_factory()
  // Init's PID as the host sees it, for usage(): the supervisor clears launched_'s copy under
  // mutex_ once init is reaped.
  pid_t init_pid_ = -1;
  // The parked interpreter's end of the socket it waits on, and what its start cost
  // (subtracted from its command's CPU time).
  UniqueFd parked_;
  std::vector<std::string> parked_program_;
  std::int64_t parked_cpu_us_ = 0;
  bool oom_seen_ = false;
  std::uint64_t pids_max_seen_ = 0;  // pids.events "max" after the last command
  // How the idle session is frozen (freeze()), so that thaw() undoes that way; set under mutex_.
  enum class Frozen { kNo, kCgroup, kStopped };
  std::atomic<Frozen> frozen_{Frozen::kNo};
};

}  // namespace paddock
