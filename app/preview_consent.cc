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

core::Status preview_consent(const ServerOptions& options, UserChannel* user,
                             const SessionEntry& session, std::uint16_t port,
                             const AuditTrail& audit) {
  if (options.allow_preview) return {};
  if (!options.ask_preview) {
    return core::invalid_input(
        "expose_port is off: only the user can allow it, by starting the server with "
        "--allow-preview (or PADDOCK_ALLOW_PREVIEW=on), or --ask preview");
  }
  if (user == nullptr || !user->can_ask()) {
    return core::invalid_input(
        "expose_port asks the user first (--ask preview), and this client cannot ask (it did "
        "not declare MCP elicitation); the user can start the server with --allow-preview "
        "instead");
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
  std::unique_lock lock(awaited->mutex);
  // The channel answers "unanswered" itself at its timeout; this wait is only its backstop.
  auto backstop =
      std::chrono::milliseconds(static_cast<long long>(user->timeout_seconds() * 1000)) +
      std::chrono::seconds(5);
  awaited->came.wait_for(lock, backstop, [&] { return awaited->reply.has_value(); });
  UserReply reply = awaited->reply.value_or(UserReply{UserReply::Kind::kUnanswered, ""});
  bool allowed = reply.kind == UserReply::Kind::kChosen && reply.choice == "allow";
  AuditRecord record;
  record.session = session.id();
  record.answer = UserAnswerAudit{"preview", std::to_string(port), "expose_port",
                                  allowed ? "allow" : refusal_word(reply)};
  audit.record(record);
  if (allowed) return {};
  return core::invalid_input("port " + std::to_string(port) +
                             " was not opened: " + refusal_reason(reply, user->timeout_seconds()));
}

}  // namespace paddock::app
