#pragma once

// What paddock mcp --ask network asks the person, and what it remembers (docs/ask.md). A
// sandbox's proxy holds a connection to a destination the allowlist does not cover and asks its
// call's CallConsent, which asks the person through the call's UserChannel, within limits the
// sandbox cannot push: one open question per destination and call (more connections to it wait
// for the same answer), kMaxQuestionsPerCall questions per call, and kMaxOpenQuestions open
// questions for the whole server. Beyond them a connection is refused at once, so that a
// sandbox that tries a thousand hosts shows the person three questions.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/audit_trail.h"
#include "app/user_channel.h"
#include "net/egress/egress_record.h"
#include "net/egress/host_consent.h"

namespace paddock::app {

inline constexpr int kMaxQuestionsPerCall = 3;
inline constexpr int kMaxOpenQuestions = 3;

// The server's count of questions waiting for the person, all calls together.
class OpenQuestions {
 public:
  // False when kMaxOpenQuestions are open already.
  bool take();
  void give_back();

 private:
  std::atomic<int> open_{0};
};

// Destinations the person allowed "for this session": the session's, kept with a kept session.
// Each is granted to whoever was named in the question: the person who let the library installer
// reach a package index has not let the program reach it, nor the other way round.
class HostGrants {
 public:
  struct Grant {
    std::string host;
    std::uint16_t port = 0;
    bool installer = false;
    auto operator<=>(const Grant&) const = default;
  };
  [[nodiscard]] bool allows(const Grant& grant) const;
  void add(const Grant& grant);
  // As a kept session keeps them (WorkspaceInfo::allowed_by_user): "host:port" for the program,
  // "installer host:port" for the installer.
  [[nodiscard]] std::vector<std::string> saved() const;
  // A kept session's, as saved() wrote them; what does not parse is skipped. Returns those
  // restored.
  std::vector<Grant> restore(const std::vector<std::string>& saved);

 private:
  mutable std::mutex mutex_;
  std::set<Grant> granted_;
};

// Who is asking, as the question and the audit line name it.
struct ConsentAsker {
  std::string words;    // "Sandbox session s-1a2b (\"data\")", "A fresh sandbox"
  std::string session;  // its id, or empty for a fresh call
};

// One call's answers to its sandbox's proxy.
class CallConsent : public net::egress::HostConsent,
                    public std::enable_shared_from_this<CallConsent> {
 public:
  CallConsent(std::shared_ptr<UserChannel> channel, ConsentAsker asker,
              std::shared_ptr<HostGrants> grants, OpenQuestions& open, const AuditTrail& audit);
  void ask(const net::egress::ConsentQuestion& question,
           std::function<void(const net::egress::ConsentAnswer&)> answer) override;
  [[nodiscard]] std::optional<net::egress::ConsentAnswer> known(
      const net::egress::ConsentQuestion& question) override;
  [[nodiscard]] std::chrono::milliseconds patience() const override;

 private:
  using Waiter = std::function<void(const net::egress::ConsentAnswer&)>;
  void answered(const net::egress::ConsentQuestion& question, const UserReply& reply);
  // known(), with mutex_ held; none also when its question is open already (then it waits).
  [[nodiscard]] std::optional<net::egress::ConsentAnswer> settled(
      const net::egress::ConsentQuestion& question) const;
  [[nodiscard]] UserQuestion question_for(const net::egress::ConsentQuestion& question) const;

  std::shared_ptr<UserChannel> channel_;
  ConsentAsker asker_;
  std::shared_ptr<HostGrants> grants_;
  OpenQuestions& open_;
  const AuditTrail& audit_;
  std::mutex mutex_;
  std::map<std::string, std::vector<Waiter>> waiting_;  // by "host:port"
  std::map<std::string, std::string> refused_;          // refused this call: not asked again
  int asked_ = 0;
};

}  // namespace paddock::app
