#pragma once

// One tool call's way to the person at the client (paddock mcp --ask): the front-end makes it
// (MCP elicitation, in whichever protocol era the call came), the services ask through it. A
// question is a message and a few choices; the answer comes back once, on any thread.

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace paddock::app {

struct UserChoice {
  std::string value;  // what the answer carries: "once", "deny"
  std::string title;  // what the person reads: "Allow once"
};

struct UserQuestion {
  std::string message;
  std::vector<UserChoice> choices;
};

struct UserReply {
  enum class Kind {
    kChosen,      // `choice` is one of the question's values
    kDeclined,    // the person said no without choosing
    kDismissed,   // the person closed the question
    kUnanswered,  // nothing came within the server's --ask-timeout
    kCannotAsk,   // nobody to ask: the call ended, or the client went away
  };
  Kind kind = Kind::kUnanswered;
  std::string choice;
};

class UserChannel {
 public:
  virtual ~UserChannel() = default;
  // Whether the client said it can ask its user (the elicitation capability).
  [[nodiscard]] virtual bool can_ask() const = 0;
  // `done` is called exactly once, from any thread, perhaps before ask returns; the channel
  // answers kUnanswered itself once its timeout passes.
  virtual void ask(const UserQuestion& question, std::function<void(const UserReply&)> done) = 0;
  // The seconds a question waits for its answer (for the words of a refusal).
  [[nodiscard]] virtual double timeout_seconds() const = 0;
};

// A reply that allows nothing, as a refusal's reason ("the user denied it")...
std::string refusal_reason(const UserReply& reply, double timeout_seconds);
// ...and as the audit log's word for it: denied, dismissed, unanswered or not_asked.
std::string refusal_word(const UserReply& reply);

}  // namespace paddock::app
