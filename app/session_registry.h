#pragma once

// The sessions a server holds: capped in number, closed after idle time, all closed on exit.
// A session in use is never expired under its caller; a closed one stays closed for callers
// that still hold it (its Session refuses further work).

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/session_entry.h"
#include "core/result.h"
#include "language/policy.h"
#include "net/preview/forwarder.h"
#include "runtime/session.h"

namespace paddock::app {

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
  core::Status reserve();
  void unreserve();
  // Takes a reserved slot. `settings.ttl_seconds` is capped at the server's maximum; an empty
  // `settings.id` (a new session) gets a new one.
  std::shared_ptr<SessionEntry> add(std::unique_ptr<runtime::Session> session,
                                    const language::LanguagePolicy& policy,
                                    SessionSettings settings);
  // A new session's id: 128 random bits, so one cannot be guessed from another.
  static std::string new_id();
  // Opens a session that is not open here (a kept one, by id or name): set by the server that
  // keeps sessions on disk. acquire() asks it for what it does not hold.
  using Reopener =
      std::function<core::Result<std::shared_ptr<SessionEntry>>(const std::string& id)>;
  void set_reopener(Reopener reopener) { reopener_ = std::move(reopener); }
  core::Result<SessionLease> acquire(const std::string& id);
  // The session without using it: its idle time goes on (for get_session, which reports it).
  core::Result<std::shared_ptr<SessionEntry>> find(const std::string& id);
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
  core::Result<ExposedPort> expose(SessionEntry& entry, std::uint16_t port,
                                   net::preview::PreviewProtocol protocol);
  // Sessions open or being opened.
  [[nodiscard]] std::size_t size();
  [[nodiscard]] double max_ttl_seconds() const { return max_ttl_seconds_; }

 private:
  std::mutex mutex_;
  static core::Status thaw_for_use(SessionEntry& entry);
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
