#include "app/session_registry.h"

#include <sys/random.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "app/log.h"

namespace paddock::app {

std::string SessionRegistry::new_id() {
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

SessionLease::SessionLease(std::shared_ptr<SessionEntry> entry) : entry_(std::move(entry)) {
  ++entry_->users_;
  entry_->touch();
}

SessionLease::~SessionLease() {
  if (!entry_) return;
  entry_->touch();
  --entry_->users_;
}

core::Status SessionRegistry::reserve() {
  std::lock_guard lock(mutex_);
  if (sessions_.size() + reserved_ >= max_sessions_) {
    return core::Error{EAGAIN, "there are already " + std::to_string(max_sessions_) +
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

std::shared_ptr<SessionEntry> SessionRegistry::add(std::unique_ptr<runtime::Session> session,
                                                   const language::LanguagePolicy& policy,
                                                   SessionSettings settings) {
  if (settings.id.empty()) settings.id = new_id();
  settings.ttl_seconds = std::min(settings.ttl_seconds, max_ttl_seconds_);
  auto entry = std::make_shared<SessionEntry>(std::move(session), policy, std::move(settings));
  entry->touch();
  std::lock_guard lock(mutex_);
  --reserved_;
  sessions_[entry->id()] = entry;
  return entry;
}

core::Result<std::shared_ptr<SessionEntry>> SessionRegistry::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(id);
  if (found == sessions_.end() && !id.empty()) {
    found = std::find_if(sessions_.begin(), sessions_.end(),
                         [&](const auto& open) { return open.second->name() == id; });
  }
  if (found == sessions_.end()) {
    return core::Error{ENOENT, "no session '" + id +
                                   "' (it was closed, expired after idle time, or never existed); "
                                   "create_session makes a new one"};
  }
  return found->second;
}

core::Result<SessionLease> SessionRegistry::acquire(const std::string& id) {
  auto entry = find(id);
  if (entry) {
    SessionLease lease(std::move(*entry));
    if (auto thawed = thaw_for_use(*lease); !thawed) return thawed.error();
    return lease;
  }
  if (!reopener_) return entry.error();
  std::lock_guard reopening(reopening_);
  if (auto opened = find(id); opened) return SessionLease(std::move(*opened));
  auto reopened = reopener_(id);
  if (!reopened) {
    // Nothing on disk by that name: the error of a session never seen.
    if (reopened.error().code == ENOENT) return entry.error();
    return reopened.error();
  }
  return SessionLease(std::move(*reopened));
}

// The lease counts as a user before this takes freeze_mutex, so freeze_idle either sees it and
// leaves the session be, or froze it first and this thaws it.
core::Status SessionRegistry::thaw_for_use(SessionEntry& entry) {
  auto freeze = entry.lock_freeze();
  freeze.used();
  if (!runtime::is_frozen(entry.session())) return {};
  if (auto thawed = freeze.freezing()->thaw(); !thawed) {
    return thawed.error().context("thawing session " + entry.id() + ", frozen while idle");
  }
  return {};
}

std::vector<std::string> SessionRegistry::freeze_idle(double idle_seconds) {
  std::vector<std::string> frozen;
  if (idle_seconds <= 0) return frozen;
  for (const auto& entry : list()) {
    if (entry->in_use() || entry->freeze_refused() != SessionEntry::FreezeRefused::kNo ||
        entry->idle_seconds() <= idle_seconds || runtime::is_frozen(entry->session()) ||
        entry->has_previews()) {
      continue;
    }
    auto freeze = entry->lock_freeze();
    if (entry->in_use()) continue;  // leased meanwhile
    runtime::IdleFreezing* freezing = freeze.freezing();
    auto done =
        freezing != nullptr
            ? freezing->freeze()
            : core::Status{core::Error{ENOTSUP, "this backend does not freeze idle sessions"}};
    if (done) {
      frozen.push_back(entry->id());
    } else if (done.error().code == ENOTSUP) {
      freeze.refuse(SessionEntry::FreezeRefused::kAlways);
    } else if (done.error().code != EBUSY) {
      // Not again every second: a process that will not stop (stuck in the kernel) stays so.
      freeze.refuse(SessionEntry::FreezeRefused::kUntilUsed);
      log(LogLevel::kWarning,
          "session " + entry->id() + " stays unfrozen until its next use: " + done.error().message);
    }
  }
  return frozen;
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
  close_entry(*entry);
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
      if (!entry.in_use() && entry.idle_seconds() > entry.ttl_seconds()) {
        expired.push_back(it->second);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::vector<std::string> ids;
  for (auto& entry : expired) {
    close_entry(*entry);
    ids.push_back(entry->id());
  }
  return ids;
}

void SessionRegistry::close_all() {
  std::map<std::string, std::shared_ptr<SessionEntry>> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(sessions_);
  }
  for (auto& [id, entry] : all) close_entry(*entry);
}

void SessionRegistry::close_entry(SessionEntry& entry) {
  // Even without a preview: a failed expose_port may have left the session's factory there.
  if (previews_) previews_->close_group(entry.id());
  entry.session().close();
}

void SessionRegistry::set_previews(std::unique_ptr<net::preview::PreviewForwarder> previews) {
  previews_ = std::move(previews);
}

core::Result<ExposedPort> SessionRegistry::expose(SessionEntry& entry, std::uint16_t port,
                                                  net::preview::PreviewProtocol protocol) {
  if (!previews_) {
    return core::Error{
        EPERM,
        "expose_port is off: only the user can allow it, by starting the server with "
        "--allow-preview (or PADDOCK_ALLOW_PREVIEW=on)"};
  }
  auto previews = entry.lock_previews();
  std::string protocol_name = protocol == net::preview::PreviewProtocol::kHttp ? "http" : "tcp";
  for (const auto& exposed : previews.ports()) {
    if (exposed.port == port && exposed.protocol == protocol_name) {
      return accepting_now(entry.session(), exposed);
    }
  }
  core::UniqueFd factory;
  if (!previews_->has_group(entry.id())) {
    runtime::PreviewSockets* sockets = entry.session().previews();
    if (sockets == nullptr) {
      return core::Error{ENOTSUP,
                         "session " + entry.id() +
                             ": this backend has no previews (only the native backend has them)"};
    }
    auto taken = sockets->take_preview_factory();
    if (!taken) return taken.error().context("session " + entry.id());
    factory = std::move(*taken);
  }
  auto opened = previews_->open(entry.id(), std::move(factory), port, protocol);
  if (!opened) return opened.error().context("session " + entry.id());
  ExposedPort exposed{port,        opened->host_port, protocol_name,
                      opened->url, opened->accepting, opened->probe};
  previews.add(exposed);
  return exposed;
}

}  // namespace paddock::app
