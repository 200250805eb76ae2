#include "app/user_channel.h"

#include "core/units.h"

namespace paddock::app {

std::string refusal_reason(const UserReply& reply, double timeout_seconds) {
  switch (reply.kind) {
    case UserReply::Kind::kChosen:
    case UserReply::Kind::kDeclined:
      return "the user denied it";
    case UserReply::Kind::kDismissed:
      return "the user dismissed the question";
    case UserReply::Kind::kUnanswered:
      return "nobody answered within " + core::seconds_text(timeout_seconds);
    case UserReply::Kind::kCannotAsk:
      break;
  }
  return "the user could not be asked (the call ended or the client went away)";
}

std::string refusal_word(const UserReply& reply) {
  switch (reply.kind) {
    case UserReply::Kind::kChosen:
    case UserReply::Kind::kDeclined:
      return "denied";
    case UserReply::Kind::kDismissed:
      return "dismissed";
    case UserReply::Kind::kUnanswered:
      return "unanswered";
    case UserReply::Kind::kCannotAsk:
      break;
  }
  return "not_asked";
}

}  // namespace paddock::app
