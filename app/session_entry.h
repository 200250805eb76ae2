#pragma once

// One open session as the registry holds it (app/session_registry.h). What never changes after it
// is opened is read freely; what its locks guard is reached only through the guard a lock gives
// (lock_run, lock_freeze, lock_previews), so code that skips the lock does not compile; what its
// atomics hold is read and changed through methods that say what for.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/host_questions.h"
#include "app/shares.h"
#include "language/policy.h"
#include "runtime/live_kernel.h"
#include "runtime/session.h"
#include "state/saved_workspace.h"

namespace paddock::app {

// A port of a session opened on the host (expose_port, docs/previews.md).
struct ExposedPort {
  std::uint16_t port = 0;  // the sandbox's
  std::uint16_t host_port = 0;
  std::string protocol;  // "http" or "tcp"
  std::string url;
  bool accepting = false;  // something listens on the sandbox's port, as last looked at
  std::string probe;       // if not, why
};

// `port` with whether something listens on it in `session`'s sandbox now: each expose_port call
// and each listing looks again (an app started after its port was exposed is then "accepting").
ExposedPort accepting_now(runtime::Session& session, ExposedPort port);

// What a session is opened with, fixed for its life.
struct SessionSettings {
  std::string id;                  // a kept session's own, reopened; empty for a new one
  double ttl_seconds = 0;          // idle time after which it is closed (the registry caps it)
  runtime::Limits limits;          // of the session's sandbox (a run's timeout is its own)
  std::vector<ShareMount> mounts;  // shares mounted into it (create_session's mounts)
  std::string name;                // the caller's name for it, or empty
};

class SessionEntry {
 public:
  // `settings.id` is the id it is known by: SessionRegistry::add fills it in.
  SessionEntry(std::unique_ptr<runtime::Session> session, const language::LanguagePolicy& policy,
               SessionSettings settings);
  SessionEntry(const SessionEntry&) = delete;
  SessionEntry& operator=(const SessionEntry&) = delete;

  // Set when it is opened, never changed: read without a lock.
  [[nodiscard]] const std::string& id() const { return settings_.id; }
  [[nodiscard]] const language::LanguagePolicy& policy() const { return policy_; }
  [[nodiscard]] double ttl_seconds() const { return settings_.ttl_seconds; }
  [[nodiscard]] const runtime::Limits& limits() const { return settings_.limits; }
  [[nodiscard]] const std::vector<ShareMount>& mounts() const { return settings_.mounts; }
  [[nodiscard]] const std::string& name() const { return settings_.name; }
  // What the user allowed "for this session" when asked (paddock mcp --ask network).
  [[nodiscard]] const std::shared_ptr<HostGrants>& host_grants() const { return host_grants_; }
  [[nodiscard]] std::chrono::system_clock::time_point created_at() const { return created_at_; }
  [[nodiscard]] std::string created_at_utc() const;  // "2026-11-21T10:00:00Z"
  // The sandbox: a Session answers calls from several threads itself. Only a freeze or a thaw
  // of it goes through lock_freeze.
  [[nodiscard]] runtime::Session& session() const { return *session_; }

  // Use and idle time (steady clock).
  void touch();
  [[nodiscard]] double idle_seconds() const;
  // Leases holding it now (SessionLease); one in use is neither frozen nor expired.
  [[nodiscard]] int users() const { return users_.load(); }
  [[nodiscard]] bool in_use() const { return users_.load() > 0; }
  // Runs so far (execute_code calls), for reports; counted under run_mutex (RunAccess).
  [[nodiscard]] int runs() const { return runs_.load(); }

  // The live interpreter, for readers that do not take run_mutex (get_session): null while it
  // starts or when there is none. Safe because the kernel, and the reason there is none, are set
  // once (RunAccess::set_live, set_not_live) before the release store that says which; the kernel
  // is never replaced after (a restart is its own).
  [[nodiscard]] const runtime::LiveKernel* live_kernel() const;
  // Why there is no live kernel (or that it is starting), when live_kernel is null.
  [[nodiscard]] std::string not_live_reason() const;

  // Whether its workspace is kept on disk, and the bytes its files held at the last save: as
  // they were when run_mutex was last let go (RunAccess publishes them), for readers that do not
  // take it (list_sessions, the state directory's room). Empty when it is not kept.
  [[nodiscard]] std::optional<std::uint64_t> kept_used_bytes() const;
  [[nodiscard]] bool kept_on_disk() const { return kept_used_bytes().has_value(); }

  // Not asked to freeze again: never (its backend cannot), or until its next use (it failed).
  enum class FreezeRefused { kNo, kUntilUsed, kAlways };
  [[nodiscard]] FreezeRefused freeze_refused() const { return freeze_refused_.load(); }
  // Whether any of its ports is open (expose_port): then it is never frozen while idle.
  [[nodiscard]] bool has_previews() const { return has_previews_.load(); }
  // Its previews, copied under exposed_mutex, each with whether something listens on it now.
  [[nodiscard]] std::vector<ExposedPort> previews() const;

  class RunAccess;
  class FreezeAccess;
  class PreviewsAccess;
  // Takes run_mutex: the steps of one call back to back, and what they change.
  [[nodiscard]] RunAccess lock_run();
  // Takes freeze_mutex: orders an idle freeze (SessionRegistry::freeze_idle) against a new
  // lease's thaw.
  [[nodiscard]] FreezeAccess lock_freeze();
  // Takes exposed_mutex: its previews' list.
  [[nodiscard]] PreviewsAccess lock_previews();

 private:
  friend class SessionLease;
  enum class Interpreter { kPending, kLive, kNotLive };
  static constexpr std::uint64_t kNotKept = ~std::uint64_t{0};

  void publish_kept();  // under run_mutex: what kept_used_bytes says

  const language::LanguagePolicy& policy_;
  const SessionSettings settings_;
  const std::chrono::system_clock::time_point created_at_ = std::chrono::system_clock::now();
  const std::unique_ptr<runtime::Session> session_;
  std::atomic<std::int64_t> last_used_ms_{0};
  std::atomic<int> users_{0};
  std::atomic<int> runs_{0};

  std::mutex run_mutex_;
  // Guarded by run_mutex. The live interpreter (after `session_`, so that it goes first), or why
  // there is none: then each call runs as a new process. Both are set once before `interpreter_`
  // says which.
  std::unique_ptr<runtime::LiveKernel> kernel_;
  std::string not_live_;
  std::atomic<Interpreter> interpreter_{Interpreter::kPending};
  // Guarded by run_mutex. Its workspace on disk (app/kept_sessions.h), when the server keeps
  // sessions: written after each call that may change files.
  std::unique_ptr<state::SavedWorkspace> kept_;
  std::atomic<std::uint64_t> kept_bytes_{kNotKept};  // published from kept_ (kept_used_bytes)
  // Guarded by run_mutex. What a save of it may add to the state directory, under --state-disk,
  // and what to tell the state directory a save wrote; set with `kept_`.
  std::function<std::uint64_t()> state_disk_room_;
  std::function<void(std::uint64_t bytes)> state_disk_wrote_;
  // Guarded by run_mutex. Why the interpreter's earlier state is gone, said once by the next
  // cell ("the server restarted").
  std::string state_lost_;

  std::mutex freeze_mutex_;
  // Written under freeze_mutex; read without it to pass over a session quickly.
  std::atomic<FreezeRefused> freeze_refused_{FreezeRefused::kNo};

  mutable std::mutex exposed_mutex_;
  std::vector<ExposedPort> exposed_;       // guarded by exposed_mutex
  std::atomic<bool> has_previews_{false};  // set with the first of `exposed_`
  const std::shared_ptr<HostGrants> host_grants_ = std::make_shared<HostGrants>();
};

// run_mutex held: what one call changes in the session, and its interpreter.
class SessionEntry::RunAccess {
 public:
  explicit RunAccess(SessionEntry& entry) : entry_(entry), lock_(entry.run_mutex_) {}
  RunAccess(const RunAccess&) = delete;
  RunAccess& operator=(const RunAccess&) = delete;
  ~RunAccess() { unlock(); }
  // Lets run_mutex go before the guard ends; nothing of it may be used after.
  void unlock();

  [[nodiscard]] SessionEntry& entry() const { return entry_; }

  // The live interpreter, or null (none, or not yet started).
  [[nodiscard]] runtime::LiveKernel* kernel() const { return entry_.kernel_.get(); }
  [[nodiscard]] const std::string& not_live() const { return entry_.not_live_; }
  // Each once, when the interpreter starts or cannot: readers without the lock see it then.
  void set_live(std::unique_ptr<runtime::LiveKernel> kernel);
  void set_not_live(std::string why);

  // The number the next run gets, and counting it.
  [[nodiscard]] int next_run() const { return entry_.runs_.load() + 1; }
  int count_run() { return ++entry_.runs_; }

  [[nodiscard]] state::SavedWorkspace* kept() const { return entry_.kept_.get(); }
  void set_kept(std::unique_ptr<state::SavedWorkspace> kept) { entry_.kept_ = std::move(kept); }
  // What a save may add under --state-disk, and what to tell of what it wrote.
  void set_state_disk(std::function<std::uint64_t()> room,
                      std::function<void(std::uint64_t bytes)> wrote);
  [[nodiscard]] const std::function<std::uint64_t()>& state_disk_room() const {
    return entry_.state_disk_room_;
  }
  [[nodiscard]] const std::function<void(std::uint64_t bytes)>& state_disk_wrote() const {
    return entry_.state_disk_wrote_;
  }

  // Why the earlier interpreter's state is gone, until the next cell says it (take_state_lost).
  void set_state_lost(std::string why) { entry_.state_lost_ = std::move(why); }
  std::string take_state_lost() { return std::exchange(entry_.state_lost_, ""); }

 private:
  SessionEntry& entry_;
  std::unique_lock<std::mutex> lock_;
};

// freeze_mutex held: a freeze, a thaw, and whether to ask for one again.
class SessionEntry::FreezeAccess {
 public:
  explicit FreezeAccess(SessionEntry& entry) : entry_(entry), lock_(entry.freeze_mutex_) {}
  // The session's freezing, or null when its backend has none.
  [[nodiscard]] runtime::IdleFreezing* freezing() const { return entry_.session_->freezing(); }
  void refuse(FreezeRefused how) { entry_.freeze_refused_ = how; }
  // A use ends a refusal that lasted until it.
  void used();

 private:
  SessionEntry& entry_;
  std::lock_guard<std::mutex> lock_;
};

// exposed_mutex held: the session's previews.
class SessionEntry::PreviewsAccess {
 public:
  explicit PreviewsAccess(SessionEntry& entry) : entry_(entry), lock_(entry.exposed_mutex_) {}
  [[nodiscard]] const std::vector<ExposedPort>& ports() const { return entry_.exposed_; }
  void add(ExposedPort port);

 private:
  SessionEntry& entry_;
  std::lock_guard<std::mutex> lock_;
};

}  // namespace paddock::app
