#pragma once

// Who a session's sandbox asks about a destination its allowlist lacks (paddock mcp --ask
// network), for as long as one call runs in it: set under the session's run lock, so that a call
// waiting for the lock cannot take over the running call's questions, and cleared before the
// lock goes, so that a process the call left behind cannot ask between calls.

#include <memory>

#include "net/egress/host_consent.h"
#include "runtime/session.h"

namespace paddock::app {

class ConsentWhileRunning {
 public:
  ConsentWhileRunning(runtime::Session& sandbox, std::shared_ptr<net::egress::HostConsent> consent)
      : sandbox_(consent ? &sandbox : nullptr) {
    if (sandbox_ != nullptr) sandbox_->set_consent(std::move(consent));
  }
  ~ConsentWhileRunning() {
    if (sandbox_ != nullptr) sandbox_->set_consent(nullptr);
  }
  ConsentWhileRunning(const ConsentWhileRunning&) = delete;
  ConsentWhileRunning& operator=(const ConsentWhileRunning&) = delete;

 private:
  runtime::Session* sandbox_;
};

}  // namespace paddock::app
