#include "services/session_registry.h"

#include <sys/random.h>

#include <cstdio>
#include <ctime>

#include "core/utc_time.h"

namespace paddock::mcp {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// 128 random bits: a session id cannot be guessed from another.
std::string new_session_id() {
  unsigned char bytes[16] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string id = "s-";
  char hex[3];
  for (unsigned char byte : bytes) {
    std::snprintf(hex, sizeof hex, "%02x", byte);
    id += hex;
  }
  return id;
}

}  // namespace

std::string SessionEntry::created_at_utc() const {
  return utc_text(created_at);
}

double SessionEntry::idle_seconds() const {
  return static_cast<double>(steady_ms() - last_used_ms.load()) / 1000.0;
}

void SessionEntry::touch() {
  last_used_ms = steady_ms();
}

SessionLease::SessionLease(std::shared_ptr<SessionEntry> entry) : entry_(std::move(entry)) {
  ++entry_->users;
  entry_->touch();
}

SessionLease::~SessionLease() {
  if (!entry_) return;
  entry_->touch();
  --entry_->users;
}

Status SessionRegistry::reserve() {
  std::lock_guard lock(mutex_);
  if (sessions_.size() + reserved_ >= max_sessions_) {
    return Error{EAGAIN, "there are already " + std::to_string(max_sessions_) +
                             " sessions (the maximum); close one with close_session"};
  }
  ++reserved_;
  return {};
}

std::size_t SessionRegistry::size() {
  std::lock_guard lock(mutex_);
  return sessions_.size() + reserved_;
}

void SessionRegistry::unreserve() {
  std::lock_guard lock(mutex_);
  --reserved_;
}

std::shared_ptr<SessionEntry> SessionRegistry::add(std::unique_ptr<Session> session,
                                                   const LanguagePolicy& policy,
                                                   double ttl_seconds) {
  auto entry = std::make_shared<SessionEntry>();
  entry->id = new_session_id();
  entry->policy = &policy;
  entry->session = std::move(session);
  entry->ttl_seconds = std::min(ttl_seconds, max_ttl_seconds_);
  entry->touch();
  std::lock_guard lock(mutex_);
  --reserved_;
  sessions_[entry->id] = entry;
  return entry;
}

Result<std::shared_ptr<SessionEntry>> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(id);
  if (found == sessions_.end()) {
    return Error{ENOENT, "no session '" + id +
                             "' (it was closed, expired after idle time, or never existed); "
                             "create_session makes a new one"};
  }
  return found->second;
}

Result<SessionLease> SessionRegistry::acquire(const std::string& id) {
  auto entry = find(id);
  if (!entry) return entry.error();
  return SessionLease(std::move(*entry));
}

bool SessionRegistry::close(const std::string& id) {
  std::shared_ptr<SessionEntry> entry;
  {
    std::lock_guard lock(mutex_);
    auto found = sessions_.find(id);
    if (found == sessions_.end()) return false;
    entry = found->second;
    sessions_.erase(found);
  }
  entry->session->close();
  return true;
}

std::vector<std::shared_ptr<SessionEntry>> SessionRegistry::list() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<SessionEntry>> entries;
  for (const auto& [id, entry] : sessions_) entries.push_back(entry);
  return entries;
}

std::vector<std::string> SessionRegistry::expire_idle() {
  std::vector<std::shared_ptr<SessionEntry>> expired;
  {
    std::lock_guard lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const SessionEntry& entry = *it->second;
      if (entry.users == 0 && entry.idle_seconds() > entry.ttl_seconds) {
        expired.push_back(it->second);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::vector<std::string> ids;
  for (auto& entry : expired) {
    entry->session->close();
    ids.push_back(entry->id);
  }
  return ids;
}

void SessionRegistry::close_all() {
  std::map<std::string, std::shared_ptr<SessionEntry>> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(sessions_);
  }
  for (auto& [id, entry] : all) entry->session->close();
}

}  // namespace paddock::mcp
