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

namespace paddock::native {

// Has every ability a session may have (runtime/session_abilities.h).
class NativeSession final : public runtime::Session,
                            public runtime::WorkTreeAccess,
                            public runtime::ResidentHost,
                            public runtime::InterpreterParking,
                            public runtime::IdleFreezing,
                            public runtime::PreviewSockets {
 public:
  // `base`: what every command starts from (its environment and directory).
  static core::Result<std::unique_ptr<runtime::Session>> open(
      const runtime::SandboxShape& shape, const runtime::RunPlan& base,
      const net::egress::SecretBroker& broker = {});
  ~NativeSession() override { close(); }

  core::Result<runtime::RunResult> exec(const runtime::ExecRequest& request,
                                        runtime::RunObserver& observer) override;
  core::Result<runtime::RunResult> exec_with_files(const std::vector<runtime::SandboxFile>& files,
                                                   const runtime::ExecRequest& request,
                                                   runtime::RunObserver& observer) override;
  core::Status write_file(const std::string& path, std::string_view content) override;
  core::Result<runtime::FileContent> read_file(const std::string& path, std::uint64_t max_bytes,
                                               std::uint64_t offset) override;
  core::Status copy_in(const std::string& path, int source_fd, std::uint64_t size,
                       bool executable) override;
  core::Result<std::uint64_t> copy_out(const std::string& path, int sink_fd,
                                       std::uint64_t max_bytes,
                                       const runtime::CopyProgress& progress) override;
  core::Status make_directory(const std::string& path) override;
  core::Status make_symlink(const std::string& path, const std::string& target) override;
  core::Status make_hard_link(const std::string& path, const std::string& existing) override;
  core::Status walk_work_directory(const core::TreeVisitor& visit) override;
  core::Result<std::vector<runtime::FileEntry>> list_files(const std::string& path,
                                                           std::size_t max_entries) override;
  core::Result<runtime::SessionUsage> usage() override;
  core::Result<runtime::ResidentProcess> start_resident(
      const runtime::ExecRequest& request) override;
  core::Status park(const runtime::WarmInterpreter& interpreter) override;
  core::Status sweep() override;
  void kill_resident() override;
  void describe_cell(runtime::RunResult& result) override;
  void set_consent(std::shared_ptr<net::egress::HostConsent> consent) override;
  net::egress::EgressRecord take_network_record() override;
  // session_freeze.cc: the sandbox's cgroup frozen where it has one, else init's kStop.
  core::Status freeze() override;
  core::Status thaw() override;
  bool frozen() const override { return frozen_ != Frozen::kNo; }
  bool ended() override { return !check_alive(); }
  core::Result<core::UniqueFd> take_preview_factory() override;
  core::Result<bool> listening(std::uint16_t port) override;
  void close() override;

  runtime::WorkTreeAccess* work_tree() override { return this; }
  runtime::ResidentHost* resident() override { return this; }
  runtime::InterpreterParking* parking() override { return this; }
  runtime::IdleFreezing* freezing() override { return this; }
  runtime::PreviewSockets* previews() override { return this; }

 private:
  NativeSession(runtime::SandboxShape shape, runtime::RunPlan base,
                std::unique_ptr<LaunchedSandbox> launched)
      : shape_(std::move(shape)), base_(std::move(base)), launched_(std::move(launched)) {}
  // One attempt; `refused` as in with_image_root_fallback.
  static core::Result<std::unique_ptr<runtime::Session>> open_once(
      const runtime::SandboxShape& shape, const runtime::RunPlan& base,
      const net::egress::SecretBroker& broker, bool& refused);
  // Waits for init to finish setting up and send its work directory.
  core::Status wait_until_ready(bool& refused);
  // An fd of `path` opened by init as the sandbox user (see SessionOpenMode).
  core::Result<core::UniqueFd> open_inside(const std::string& path, init::SessionOpenMode mode,
                                           const std::string& target = "");
  // A regular file opened inside for reading, and its size. Called with mutex_ held.
  core::Result<core::UniqueFd> open_to_read(const std::string& path, std::uint64_t* size);
  core::Status check_alive() const;
  // The kExec or kStartResident packet for a command: `files` (kExec only), argv, then the
  // session's environment merged with the request's. E2BIG when it does not fit in one.
  core::Result<std::unique_ptr<init::SessionRequest>> command_packet(
      init::SessionRequestKind kind, const runtime::ExecRequest& request,
      const std::vector<runtime::SandboxFile>& files = {}) const;
  core::Result<runtime::RunResult> exec_command(const runtime::ExecRequest& request,
                                                const std::vector<runtime::SandboxFile>& files,
                                                runtime::RunObserver& observer);
  // What a command with network borrows, given back when it goes out of scope.
  struct LentNetwork;
  // Gives the command the network `request` asks for, if any: through the proxy with its own
  // allowlist, or user-mode networking, the live interpreter stopped meanwhile.
  core::Status lend_network(const runtime::ExecRequest& request, LentNetwork& lent);
  // The session's cgroup as the command that just ended left it: only its own OOM kill and
  // pids refusals count.
  CgroupOutcome command_cgroup();
  // The environment a command of `request` starts with: the session's, the request's over it,
  // and the egress proxy's last where the sandbox has one.
  [[nodiscard]] std::vector<std::string> command_env(const runtime::ExecRequest& request) const;
  // Hands the command's streams and environment to the parked interpreter (park()): it runs the
  // command. kSandboxGone when it is gone, so that nothing of the call ran.
  core::Status send_to_parked(const runtime::ExecRequest& request, const int (&fds)[3]);
  // Sends a request without data or fds; then, if `reply` is not kGo, waits for that answer.
  core::Result<init::ChildMessage> ask(init::SessionRequestKind kind, init::ChildMessageKind reply);
  // The next message of kind `reply` from init (others, such as kResidentExited, pass by), with
  // the fd that rode along in `passed`.
  core::Result<init::ChildMessage> await_reply(init::ChildMessageKind reply,
                                               core::UniqueFd* passed);

  std::mutex mutex_;  // one command or file operation at a time
  // Held by close() while the sandbox goes, and by usage(), which must not wait for mutex_ (a
  // command holds it until it ends).
  std::mutex closing_mutex_;
  runtime::SandboxShape shape_;
  runtime::RunPlan base_;
  std::unique_ptr<LaunchedSandbox> launched_;
  core::UniqueFd workdir_;
  core::UniqueFd killer_;           // a pidfd of init, to kill it without the lock
  core::UniqueFd preview_factory_;  // init's kSocketFactory, until take_preview_factory()
  // Init's PID as the host sees it, for usage(): the supervisor clears launched_'s copy under
  // mutex_ once init is reaped.
  pid_t init_pid_ = -1;
  // The parked interpreter's end of the socket it waits on (or of the pipe it answers on), and
  // what its start cost (subtracted from its command's CPU time).
  core::UniqueFd parked_;
  // Where its call comes on a pipe of its own (WarmInterpreter::call_on_pipes): that pipe's write
  // end, closed once the call is written. Else none: parked_ is a socket both ways.
  core::UniqueFd parked_call_;
  // Where its streams were made at its start (WarmInterpreter::streams_from_start): the read
  // ends of its stdout and stderr, which become its command's output.
  core::UniqueFd parked_stdout_;
  core::UniqueFd parked_stderr_;
  std::vector<std::string> parked_program_;
  std::int64_t parked_cpu_us_ = 0;
  bool oom_seen_ = false;
  std::uint64_t pids_max_seen_ = 0;  // pids.events "max" after the last command
  // How the idle session is frozen (freeze()), so that thaw() undoes that way; set under mutex_.
  enum class Frozen { kNo, kCgroup, kStopped };
  std::atomic<Frozen> frozen_{Frozen::kNo};
};

}  // namespace paddock::native
