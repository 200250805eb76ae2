#pragma once

// The sessions a server holds: capped in number, closed after idle time, all closed on exit.
// A session in use is never expired under its caller; a closed one stays closed for callers
// that still hold it (its Session refuses further work).

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/shares.h"
#include "core/result.h"
#include "language/policy.h"
#include "net/preview/forwarder.h"
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
  bool accepting = false;  // something accepted on the sandbox's port when it opened
  std::string probe;       // if not, why
};

struct SessionEntry {
  std::string id;
  const LanguagePolicy* policy = nullptr;
  std::unique_ptr<Session> session;
  // The live interpreter (after `session`, so that it goes first), or why there is none: then
  // each call runs as a new process. Both are set once, under run_mutex, before `interpreter`
  // says which (readers that do not take run_mutex, such as get_session, look there first).
  std::unique_ptr<LiveKernel> kernel;
  std::string not_live;
  enum class Interpreter { kPending, kLive, kNotLive };
  std::atomic<Interpreter> interpreter{Interpreter::kPending};
  std::chrono::system_clock::time_point created_at = std::chrono::system_clock::now();
  double ttl_seconds = 0;                     // idle time after which it is closed
  std::atomic<std::int64_t> last_used_ms{0};  // steady clock
  std::atomic<int> users{0};
  std::atomic<int> runs{0};
  Limits limits;                   // of the session's sandbox (a run's timeout is its own)
  std::vector<ShareMount> mounts;  // shares mounted into it (create_session's mounts)
  std::mutex run_mutex;            // the steps of one execute_code run back to back
  // Its workspace on disk (app/kept_sessions.h), when the server keeps sessions: written
  // after each call that may change files, under run_mutex.
  std::unique_ptr<state::SavedWorkspace> kept;
  // What a save of it may add to the state directory, under --state-disk, and what to tell the
  // state directory a save wrote; set with `kept` (attach_state_disk_room).
  std::function<std::uint64_t()> state_disk_room;
  std::function<void(std::uint64_t bytes)> state_disk_wrote;
  std::string name;  // the caller's name for it, or empty
  // Why the interpreter's earlier state is gone, said once by the next cell ("the server
  // restarted"); under run_mutex.
  std::string state_lost;
  // Orders an idle freeze (SessionRegistry::freeze_idle) against a new lease's thaw.
  std::mutex freeze_mutex;
  // Not asked to freeze again: never (its backend cannot), or until its next use (it failed).
  enum class FreezeRefused { kNo, kUntilUsed, kAlways };
  std::atomic<FreezeRefused> freeze_refused{FreezeRefused::kNo};
  // Its previews; a session with any is never frozen while idle (its server must answer).
  mutable std::mutex exposed_mutex;
  std::vector<ExposedPort> exposed;
  std::atomic<bool> has_previews{false};

  [[nodiscard]] double idle_seconds() const;
  [[nodiscard]] std::string created_at_utc() const;  // "2026-11-21T10:00:00Z"
  void touch();
};

// Holds a session in use: it cannot expire until the lease ends.
class SessionLease {
 public:
  explicit SessionLease(std::shared_ptr<SessionEntry> entry);
  ~SessionLease();
  SessionLease(SessionLease&&) = default;
  SessionEntry* operator->() const { return entry_.get(); }
  SessionEntry& operator*() const { return *entry_; }

 private:
  std::shared_ptr<SessionEntry> entry_;
};

class SessionRegistry {
 public:
  SessionRegistry(std::size_t max_sessions, double max_ttl_seconds)
      : max_sessions_(max_sessions), max_ttl_seconds_(max_ttl_seconds) {}

  // A slot for a session about to be opened, or an error when the cap is reached.
  Status reserve();
  void unreserve();
  // Takes a reserved slot. `ttl_seconds` is capped at the server's maximum.
  // `id`: a kept session's own, reopened; empty for a new one.
  std::shared_ptr<SessionEntry> add(std::unique_ptr<Session> session, const LanguagePolicy& policy,
                                    double ttl_seconds, const std::string& id = "");
  // A new session's id: 128 random bits, so one cannot be guessed from another.
  static std::string new_id();
  // Opens a session that is not open here (a kept one, by id or name): set by the server that
  // keeps sessions on disk. acquire() asks it for what it does not hold.
  using Reopener = std::function<Result<std::shared_ptr<SessionEntry>>(const std::string& id)>;
  void set_reopener(Reopener reopener) { reopener_ = std::move(reopener); }
  Result<SessionLease> acquire(const std::string& id);
  // The session without using it: its idle time goes on (for get_session, which reports it).
  Result<std::shared_ptr<SessionEntry>> find(const std::string& id);
  bool close(const std::string& id);
  std::vector<std::shared_ptr<SessionEntry>> list();
  // Closes sessions idle for longer than their ttl; returns their ids.
  std::vector<std::string> expire_idle();
  // Freezes sessions not in use and idle for longer than `idle_seconds` (Session::freeze);
  // returns their ids. None when `idle_seconds` is 0. acquire() thaws a frozen session first.
  std::vector<std::string> freeze_idle(double idle_seconds);
  void close_all();
  // Previews (net/preview/forwarder.h): set once, when the server allows them
  // (--allow-preview); then every session closed here ends its previews.
  void set_previews(std::unique_ptr<net::preview::PreviewForwarder> previews);
  [[nodiscard]] bool previews_allowed() const { return previews_ != nullptr; }
  // Opens the session's `port` on the host; EPERM when the server does not allow previews.
  Result<ExposedPort> expose(SessionEntry& entry, std::uint16_t port,
                             net::preview::PreviewProtocol protocol);
  // Sessions open or being opened.
  [[nodiscard]] std::size_t size();
  [[nodiscard]] double max_ttl_seconds() const { return max_ttl_seconds_; }

 private:
  std::mutex mutex_;
  static Status thaw_for_use(SessionEntry& entry);
  // Ends the entry's previews and closes its session.
  void close_entry(SessionEntry& entry);
  std::unique_ptr<net::preview::PreviewForwarder> previews_;

  std::map<std::string, std::shared_ptr<SessionEntry>> sessions_;
  std::size_t reserved_ = 0;
  Reopener reopener_;
  std::mutex reopening_;  // one reopen at a time: two calls for one kept session open it once
  std::size_t max_sessions_;
  double max_ttl_seconds_;
};

}  // namespace paddock::app
