#pragma once

// Asking the person about a destination the allowlist does not cover (paddock mcp --ask
// network). The proxy holds the connection, without a thread, until the answer comes back into
// its loop: it never waits on the person itself. Who asks, how, and what is remembered (an
// answer "for this session", the limits on open questions) is the server's (app/host_questions.h).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paddock::net::io {
class EventLoop;
}  // namespace paddock::net::io

namespace paddock::net::egress {

struct ConsentQuestion {
  std::string host;
  std::uint16_t port = 0;
  bool installer = false;  // the sandbox's library installer asked, not its program
};

struct ConsentAnswer {
  bool allowed = false;
  // Said to the user this time (and so named in the call's result), rather than known already.
  bool asked = false;
  std::string scope;   // when allowed and asked: "once" or "for this session"
  std::string reason;  // when refused: why ("the user denied it")
};

class HostConsent {
 public:
  virtual ~HostConsent() = default;
  // Called on the proxy's loop, so it must not block. `answer` is called exactly once, from any
  // thread, perhaps before ask returns.
  virtual void ask(const ConsentQuestion& question,
                   std::function<void(const ConsentAnswer&)> answer) = 0;
  // The answer when it is known without asking (allowed before, refused before, nobody to
  // ask, no more questions allowed): the proxy then spends no name lookup on a destination
  // whose question would be refused anyway. Called on the proxy's loop.
  [[nodiscard]] virtual std::optional<ConsentAnswer> known(const ConsentQuestion& question) = 0;
  // How long an answer may take: the proxy refuses a connection held longer (a bug's backstop;
  // the asker answers "nobody answered" itself before then).
  [[nodiscard]] virtual std::chrono::milliseconds patience() const = 0;
};

// Where answers wait for the proxy's loop: posted from any thread, taken by the loop, and
// dropped once the proxy has stopped (an answer may come long after its connection is gone).
class ConsentMailbox {
 public:
  explicit ConsentMailbox(const io::EventLoop& events) : events_(&events) {}
  void post(std::uint64_t connection, ConsentAnswer answer);
  std::vector<std::pair<std::uint64_t, ConsentAnswer>> take();
  // No answer is taken in, nor the loop woken, from now on.
  void close();

 private:
  std::mutex mutex_;
  const io::EventLoop* events_;  // null once closed
  std::vector<std::pair<std::uint64_t, ConsentAnswer>> answers_;
};

}  // namespace paddock::net::egress
