#include "app/preview_consent.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

namespace paddock::app {
namespace {

// One reply, waited for on the call's own thread (the channel answers on another).
struct AwaitedReply {
  std::mutex mutex;
  std::condition_variable came;
  std::optional<UserReply> reply;
};

}  // namespace

core::Status preview_consent(const ServerOptions& options, const PreviewAsking& asking,
                             const SessionEntry& session, std::uint16_t port) {
  if (options.allow_preview) return {};
  if (!options.ask_preview) {
    return core::invalid_input(
        "expose_port is off: only the user can allow it, by starting the server with "
        "--allow-preview (or PADDOCK_ALLOW_PREVIEW=on), or --ask preview");
  }
  UserChannel* user = asking.user;
  if (user == nullptr || !user->can_ask()) {
    return core::invalid_input(
        "expose_port asks the user first (--ask preview), and this client cannot ask (it did "
        "not declare MCP elicitation); the user can start the server with --allow-preview "
        "instead");
  }
  if (!asking.open.take()) {
    return core::invalid_input("port " + std::to_string(port) +
                               " was not opened: " + std::to_string(kMaxOpenQuestions) +
                               " questions to the user are open already; try again once they "
                               "are answered");
  }
  UserQuestion question;
  question.message = "Session " + session.id() +
                     (session.name().empty() ? "" : " (\"" + session.name() + "\")") +
                     " wants to open its port " + std::to_string(port) +
                     " to your browser, on this machine's 127.0.0.1. Allow it?";
  question.choices = {{"allow", "Allow"}, {"deny", "Deny"}};
  auto awaited = std::make_shared<AwaitedReply>();
  user->ask(question, [awaited](const UserReply& reply) {
    std::lock_guard lock(awaited->mutex);
    awaited->reply = reply;
    awaited->came.notify_all();
  });
  {
    std::unique_lock lock(awaited->mutex);
    // The channel answers "unanswered" itself at its timeout; the deadline is only its backstop.
    // A cancelled call stops waiting: the token is a descriptor, not a condition, so it is
    // looked at every 100 ms.
    auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<long long>(user->timeout_seconds() * 1000)) +
        std::chrono::seconds(5);
    while (!awaited->reply && !asking.cancellation.cancelled() &&
           std::chrono::steady_clock::now() < deadline) {
      awaited->came.wait_for(lock, std::chrono::milliseconds(100));
    }
  }
  asking.open.give_back();
  std::optional<UserReply> given;
  {
    std::lock_guard lock(awaited->mutex);
    given = awaited->reply;
  }
  UserReply reply = given.value_or(UserReply{UserReply::Kind::kUnanswered, ""});
  if (!given && asking.cancellation.cancelled()) reply = {UserReply::Kind::kCannotAsk, ""};
  bool allowed = reply.kind == UserReply::Kind::kChosen && reply.choice == "allow";
  AuditRecord record;
  record.session = session.id();
  record.answer = UserAnswerAudit{"preview", std::to_string(port), "expose_port",
                                  allowed ? "allow" : refusal_word(reply)};
  asking.audit.record(record);
  if (allowed) return {};
  return core::invalid_input("port " + std::to_string(port) +
                             " was not opened: " + refusal_reason(reply, user->timeout_seconds()));
}

}  // namespace paddock::app
