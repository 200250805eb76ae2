#include "app/host_questions.h"

#include <charconv>

#include "net/egress/proxy.h"

namespace paddock::app {

bool OpenQuestions::take() {
  int now = open_.load();
  do {
    if (now >= kMaxOpenQuestions) return false;
  } while (!open_.compare_exchange_weak(now, now + 1));
  return true;
}

void OpenQuestions::give_back() {
  --open_;
}

namespace {

constexpr std::string_view kInstallerWord = "installer ";

}  // namespace

bool HostGrants::allows(const Grant& grant) const {
  std::lock_guard lock(mutex_);
  return granted_.contains(grant);
}

void HostGrants::add(const Grant& grant) {
  std::lock_guard lock(mutex_);
  granted_.insert(grant);
}

std::vector<HostGrants::Grant> HostGrants::restore(const std::vector<std::string>& saved) {
  std::vector<Grant> restored;
  for (const auto& line : saved) {
    Grant grant;
    std::string_view text = line;
    grant.installer = text.starts_with(kInstallerWord);
    if (grant.installer) text.remove_prefix(kInstallerWord.size());
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    unsigned port = 0;
    auto [last, error] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), port);
    if (error != std::errc() || last != text.data() + text.size() || port < 1 || port > 65535) {
      continue;
    }
    grant.host = std::string(text.substr(0, colon));
    grant.port = static_cast<std::uint16_t>(port);
    add(grant);
    restored.push_back(std::move(grant));
  }
  return restored;
}

std::vector<std::string> HostGrants::saved() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> lines;
  for (const auto& grant : granted_) {
    lines.push_back((grant.installer ? std::string(kInstallerWord) : "") + grant.host + ":" +
                    std::to_string(grant.port));
  }
  return lines;
}

CallConsent::CallConsent(std::shared_ptr<UserChannel> channel, ConsentAsker asker,
                         std::shared_ptr<HostGrants> grants, OpenQuestions& open,
                         const AuditTrail& audit)
    : channel_(std::move(channel)),
      asker_(std::move(asker)),
      grants_(std::move(grants)),
      open_(open),
      audit_(audit) {}

std::chrono::milliseconds CallConsent::patience() const {
  return std::chrono::milliseconds(static_cast<long long>(channel_->timeout_seconds() * 1000));
}

namespace {

std::string destination(const net::egress::ConsentQuestion& question) {
  return question.host + ":" + std::to_string(question.port);
}

// What the call's open questions and refusals are kept by: the same destination asked by the
// installer and by the program is two questions.
std::string question_key(const net::egress::ConsentQuestion& question) {
  return (question.installer ? std::string(kInstallerWord) : "") + destination(question);
}

HostGrants::Grant grant_of(const net::egress::ConsentQuestion& question) {
  return {question.host, question.port, question.installer};
}

net::egress::ConsentAnswer refusal(std::string reason) {
  net::egress::ConsentAnswer answer;
  answer.reason = std::move(reason);
  return answer;
}

}  // namespace

UserQuestion CallConsent::question_for(const net::egress::ConsentQuestion& question) const {
  UserQuestion asked;
  asked.message = asker_.words + " wants to connect to " + destination(question) +
                  (question.installer ? " (its library installer)" : " (its program)") +
                  ". Allow it?";
  asked.choices = {
      {"once", "Allow once"},
      {"session", asker_.session.empty() ? "Allow for this call" : "Allow for this session"},
      {"deny", "Deny"}};
  return asked;
}

std::optional<net::egress::ConsentAnswer> CallConsent::settled(
    const net::egress::ConsentQuestion& question) const {
  if (grants_->allows(grant_of(question))) {
    net::egress::ConsentAnswer allowed;
    allowed.allowed = true;
    return allowed;
  }
  std::string key = question_key(question);
  if (auto refused = refused_.find(key); refused != refused_.end()) {
    return refusal(refused->second + " (asked once in this call)");
  }
  if (waiting_.contains(key)) return std::nullopt;
  if (!channel_->can_ask()) {
    return refusal(
        "it is not in the allowlist, and this client cannot ask the user (it did not declare "
        "MCP elicitation)");
  }
  if (asked_ >= kMaxQuestionsPerCall) {
    return refusal("this call asked the user " + std::to_string(kMaxQuestionsPerCall) +
                   " questions already, the most one call may");
  }
  return std::nullopt;
}

std::optional<net::egress::ConsentAnswer> CallConsent::known(
    const net::egress::ConsentQuestion& question) {
  std::lock_guard lock(mutex_);
  return settled(question);
}

void CallConsent::ask(const net::egress::ConsentQuestion& question, Waiter answer) {
  std::string key = question_key(question);
  {
    std::lock_guard lock(mutex_);
    if (auto settled_now = settled(question)) {
      answer(*settled_now);
      return;
    }
    if (auto open = waiting_.find(key); open != waiting_.end()) {
      // The same question's answer serves it; no more wait than a sandbox has connections (one
      // reset while it waits leaves its place until the answer).
      if (open->second.size() >= net::egress::kMaxConnectionsPerSandbox) {
        answer(
            refusal("as many connections as a sandbox may open already wait for the same "
                    "question"));
        return;
      }
      open->second.push_back(std::move(answer));
      return;
    }
    if (!open_.take()) {
      answer(refusal(std::to_string(kMaxOpenQuestions) +
                     " questions are already waiting for the user, the most at once"));
      return;
    }
    ++asked_;
    waiting_[key].push_back(std::move(answer));
  }
  channel_->ask(question_for(question),
                [self = shared_from_this(), question](const UserReply& reply) {
                  self->answered(question, reply);
                });
}

void CallConsent::answered(const net::egress::ConsentQuestion& question, const UserReply& reply) {
  open_.give_back();
  net::egress::ConsentAnswer answer;
  answer.asked = true;
  std::string audited;
  if (reply.kind == UserReply::Kind::kChosen && reply.choice == "once") {
    answer.allowed = true;
    answer.scope = "once";
    audited = "once";
  } else if (reply.kind == UserReply::Kind::kChosen && reply.choice == "session") {
    answer.allowed = true;
    answer.scope = asker_.session.empty() ? "for this call" : "for this session";
    grants_->add(grant_of(question));
    audited = "session";
  } else {
    answer.reason = refusal_reason(reply, channel_->timeout_seconds());
    audited = refusal_word(reply);
  }
  AuditRecord record;
  if (!asker_.session.empty()) record.session = asker_.session;
  record.answer = UserAnswerAudit{"network", destination(question),
                                  question.installer ? "installer" : "program", audited};
  audit_.record(record);
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(mutex_);
    std::string key = question_key(question);
    auto found = waiting_.find(key);
    if (found != waiting_.end()) waiters = std::move(found->second);
    waiting_.erase(key);
    // "Once" is that connection's alone: the next asks again.
    if (!answer.allowed) refused_[key] = answer.reason;
  }
  for (auto& waiter : waiters) waiter(answer);
}

}  // namespace paddock::app
