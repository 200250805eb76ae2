#include "app/session_entry.h"

#include "core/utc_time.h"

namespace paddock::app {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SessionEntry::SessionEntry(std::unique_ptr<runtime::Session> session,
                           const language::LanguagePolicy& policy, SessionSettings settings)
    : policy_(policy), settings_(std::move(settings)), session_(std::move(session)) {}

std::string SessionEntry::created_at_utc() const {
  return core::utc_text(created_at_);
}

double SessionEntry::idle_seconds() const {
  return static_cast<double>(steady_ms() - last_used_ms_.load()) / 1000.0;
}

void SessionEntry::touch() {
  last_used_ms_ = steady_ms();
}

const runtime::LiveKernel* SessionEntry::live_kernel() const {
  return interpreter_.load(std::memory_order_acquire) == Interpreter::kLive ? kernel_.get()
                                                                            : nullptr;
}

std::string SessionEntry::not_live_reason() const {
  return interpreter_.load(std::memory_order_acquire) == Interpreter::kPending
             ? "the interpreter is starting"
             : not_live_;
}

std::optional<std::uint64_t> SessionEntry::kept_used_bytes() const {
  std::uint64_t bytes = kept_bytes_.load();
  if (bytes == kNotKept) return std::nullopt;
  return bytes;
}

void SessionEntry::publish_kept() {
  kept_bytes_ = kept_ ? kept_->info().used_bytes : kNotKept;
}

std::vector<ExposedPort> SessionEntry::previews() const {
  std::vector<ExposedPort> ports;
  {
    std::lock_guard lock(exposed_mutex_);
    ports = exposed_;
  }
  for (ExposedPort& port : ports) port = accepting_now(*session_, std::move(port));
  return ports;
}

ExposedPort accepting_now(runtime::Session& session, ExposedPort port) {
  runtime::PreviewSockets* sockets = session.previews();
  if (sockets == nullptr) return port;
  auto listening = sockets->listening(port.port);
  if (!listening) {
    port.accepting = false;
    port.probe = listening.error().message;
  } else {
    port.accepting = *listening;
    port.probe =
        *listening ? "" : "nothing listens on the sandbox's 127.0.0.1:" + std::to_string(port.port);
  }
  return port;
}

SessionEntry::RunAccess SessionEntry::lock_run() {
  return RunAccess(*this);
}

SessionEntry::FreezeAccess SessionEntry::lock_freeze() {
  return FreezeAccess(*this);
}

SessionEntry::PreviewsAccess SessionEntry::lock_previews() {
  return PreviewsAccess(*this);
}

void SessionEntry::RunAccess::unlock() {
  if (!lock_.owns_lock()) return;
  entry_.publish_kept();
  lock_.unlock();
}

void SessionEntry::RunAccess::set_live(std::unique_ptr<runtime::LiveKernel> kernel) {
  entry_.kernel_ = std::move(kernel);
  entry_.interpreter_.store(Interpreter::kLive, std::memory_order_release);
}

void SessionEntry::RunAccess::set_not_live(std::string why) {
  entry_.not_live_ = std::move(why);
  entry_.interpreter_.store(Interpreter::kNotLive, std::memory_order_release);
}

void SessionEntry::RunAccess::set_state_disk(std::function<std::uint64_t()> room,
                                             std::function<void(std::uint64_t bytes)> wrote) {
  entry_.state_disk_room_ = std::move(room);
  entry_.state_disk_wrote_ = std::move(wrote);
}

void SessionEntry::FreezeAccess::used() {
  auto refused = FreezeRefused::kUntilUsed;
  entry_.freeze_refused_.compare_exchange_strong(refused, FreezeRefused::kNo);
}

void SessionEntry::PreviewsAccess::add(ExposedPort port) {
  entry_.exposed_.push_back(std::move(port));
  entry_.has_previews_ = true;
}

}  // namespace paddock::app
