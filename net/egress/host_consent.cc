#include "net/egress/host_consent.h"

#include "net/io/event_loop.h"

namespace paddock::net::egress {

void ConsentMailbox::post(std::uint64_t connection, ConsentAnswer answer) {
  std::lock_guard lock(mutex_);
  if (events_ == nullptr) return;
  answers_.emplace_back(connection, std::move(answer));
  events_->wake();
}

std::vector<std::pair<std::uint64_t, ConsentAnswer>> ConsentMailbox::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(answers_, {});
}

void ConsentMailbox::close() {
  std::lock_guard lock(mutex_);
  events_ = nullptr;
  answers_.clear();
}

}  // namespace paddock::net::egress
