#pragma once

// Questions to the person at the client (paddock mcp --ask) as MCP elicitation, form mode, and
// their answers. In the 2025-06-18 and 2025-11-25 eras a question is an elicitation/create
// request the server sends while the tool call is in flight, answered on the reader thread
// (take_response). In the 2026-07-28 era the call itself answers `input_required` with the
// questions, and the client's retry brings the answers (mcp/suspended_call.h). Either way one
// timer thread answers kUnanswered for every question past --ask-timeout: a question holds no
// thread of its own.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "app/user_channel.h"
#include "mcp/json_rpc.h"
#include "mcp/message_writer.h"
#include "mcp/question_outbox.h"

namespace paddock::mcp {

// elicitation/create's params for `question`, as the protocol `version` words a choice.
json elicitation_params(const app::UserQuestion& question, const std::string& version);

// A client's answer to elicitation/create (its `result`) as a reply.
app::UserReply reply_of(const json& result);

// Whether a client's capabilities let the server ask its user in form mode.
bool can_elicit(const json& capabilities);

// One question's answer, given once whoever comes first: the client, the timer, or the end.
class PendingAnswer {
 public:
  explicit PendingAnswer(std::function<void(const app::UserReply&)> done)
      : done_(std::move(done)) {}
  void give(const app::UserReply& reply);
  [[nodiscard]] bool given();

 private:
  std::mutex mutex_;
  std::function<void(const app::UserReply&)> done_;  // emptied once given
};

// Answers kUnanswered when a question's time is up; one thread for every question.
class QuestionTimer {
 public:
  QuestionTimer();
  ~QuestionTimer();
  QuestionTimer(const QuestionTimer&) = delete;
  QuestionTimer& operator=(const QuestionTimer&) = delete;
  void watch(std::shared_ptr<PendingAnswer> answer, std::chrono::steady_clock::time_point when);

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::multimap<std::chrono::steady_clock::time_point, std::weak_ptr<PendingAnswer>> due_;
  std::thread thread_;
};

// The legacy eras' questions: each an elicitation/create request with an id of the server's own.
class ClientQuestions {
 public:
  ClientQuestions(MessageWriter& writer, double timeout_seconds)
      : timeout_seconds_(timeout_seconds), outbox_(writer) {}
  ~ClientQuestions() { close_all(); }
  ClientQuestions(const ClientQuestions&) = delete;
  ClientQuestions& operator=(const ClientQuestions&) = delete;

  // A channel for one call under the negotiated `version`; `can_ask`: the client declared
  // elicitation. Closing it (at the call's end) answers its open questions kCannotAsk and tells
  // the client they are withdrawn (notifications/cancelled).
  class Channel;
  std::shared_ptr<Channel> channel(bool can_ask, const std::string& version);
  // A response to a request of the server's: true when it answered one of its questions.
  bool take_response(const Incoming& response);
  // Every open question answered kCannotAsk (the server is shutting down).
  void close_all();
  [[nodiscard]] double timeout_seconds() const { return timeout_seconds_; }
  QuestionTimer& timer() { return timer_; }
  QuestionOutbox& outbox() { return outbox_; }

 private:
  friend class Channel;
  const double timeout_seconds_;
  QuestionTimer timer_;
  QuestionOutbox outbox_;
  std::mutex mutex_;
  bool closed_ = false;  // close_all: nobody is asked any more
  std::uint64_t next_id_ = 0;
  std::map<std::string, std::shared_ptr<PendingAnswer>> open_;  // by the request id's JSON
};

class ClientQuestions::Channel : public app::UserChannel {
 public:
  Channel(ClientQuestions& questions, bool can_ask, std::string version)
      : questions_(questions),
        can_ask_(can_ask),
        version_(std::move(version)),
        timeout_seconds_(questions.timeout_seconds_) {}
  [[nodiscard]] bool can_ask() const override { return can_ask_; }
  void ask(const app::UserQuestion& question,
           std::function<void(const app::UserReply&)> done) override;
  // A copy: a session's proxy may ask for it after the server is gone.
  [[nodiscard]] double timeout_seconds() const override { return timeout_seconds_; }
  void close();

 private:
  ClientQuestions& questions_;
  const bool can_ask_;
  const std::string version_;
  const double timeout_seconds_;
  std::mutex mutex_;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<PendingAnswer>> mine_;
};

}  // namespace paddock::mcp
