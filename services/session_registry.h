#pragma once

// The sessions a server holds: capped in number, closed after idle time, all closed on exit.
// A session in use is never expired under its caller; a closed one stays closed for callers
// that still hold it (its Session refuses further work).

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "language/policy.h"
#include "runtime/live_kernel.h"
#include "runtime/session.h"
#include "services/shares.h"

namespace paddock::mcp {

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
  std::shared_ptr<SessionEntry> add(std::unique_ptr<Session> session, const LanguagePolicy& policy,
                                    double ttl_seconds);
  Result<SessionLease> acquire(const std::string& id);
  // The session without using it: its idle time goes on (for get_session, which reports it).
  Result<std::shared_ptr<SessionEntry>> find(const std::string& id);
  bool close(const std::string& id);
  std::vector<std::shared_ptr<SessionEntry>> list();
  // Closes sessions idle for longer than their ttl; returns their ids.
  std::vector<std::string> expire_idle();
  void close_all();
  // Sessions open or being opened.
  [[nodiscard]] std::size_t size();
  [[nodiscard]] double max_ttl_seconds() const { return max_ttl_seconds_; }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<SessionEntry>> sessions_;
  std::size_t reserved_ = 0;
  std::size_t max_sessions_;
  double max_ttl_seconds_;
};

}  // namespace paddock::mcp
