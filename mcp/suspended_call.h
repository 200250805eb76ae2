#pragma once

// A 2026-07-28 tool call that asks the person (paddock mcp --ask). That revision has no
// server-to-client requests: the call answers `input_required` with its questions and a
// requestState, and the client retries the call with the person's answers. The call itself
// goes on meanwhile (its sandbox holds the connection that asked), so a retry joins it rather
// than starting it again: it takes the answers, and is owed what comes next, the call's result
// or its next questions.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/user_channel.h"
#include "mcp/client_questions.h"
#include "mcp/json_rpc.h"
#include "mcp/message_writer.h"

namespace paddock::mcp {

class SuspendedCall : public app::UserChannel {
 public:
  SuspendedCall(MessageWriter& writer, QuestionOutbox& outbox, QuestionTimer& timer,
                double timeout_seconds, bool can_ask, std::string state, json first_id,
                std::function<void()> cancel)
      : cancel_(std::move(cancel)),
        writer_(writer),
        outbox_(outbox),
        timer_(timer),
        timeout_seconds_(timeout_seconds),
        can_ask_(can_ask),
        state_(std::move(state)),
        owed_(std::move(first_id)) {}

  [[nodiscard]] bool can_ask() const override { return can_ask_; }
  void ask(const app::UserQuestion& question,
           std::function<void(const app::UserReply&)> done) override;
  [[nodiscard]] double timeout_seconds() const override { return timeout_seconds_; }

  // The call is over: its open questions are answered kCannotAsk, and `result` goes to the
  // request owed an answer, or waits for the retry. True when it was written.
  // `result` none: the call was cancelled, and nobody is owed anything.
  bool finish(std::optional<json> result);
  // A retry with `answers` (inputResponses): whether it waits (for the result or the next
  // questions), got the call's result (which ends the suspension), or came after the result
  // went to another request (the caller refuses it).
  enum class Resumed { kWaiting, kAnswered, kEnded };
  Resumed resume(const json& retry_id, const json& answers);
  // A cancellation of request `id`: the call is cancelled if `id` is the request owed its answer.
  void cancel_if_owed(const json& id);
  // Whether the result waits for a retry that has not come since `when`.
  [[nodiscard]] bool abandoned_since(std::chrono::steady_clock::time_point when);

 private:
  struct Question {
    json request;  // the InputRequest
    std::shared_ptr<PendingAnswer> answer;
    bool sent = false;
  };
  // Sends the questions not yet sent to the request owed an answer, if any.
  void send_questions();

  std::function<void()> cancel_;
  MessageWriter& writer_;
  QuestionOutbox& outbox_;  // questions are asked on a proxy's thread, which must not block
  QuestionTimer& timer_;
  const double timeout_seconds_;
  const bool can_ask_;
  const std::string state_;
  std::mutex mutex_;
  std::optional<json> owed_;  // the request (first or retry) not yet answered
  std::map<std::string, Question> questions_;
  int next_question_ = 0;
  std::optional<json> result_;
  std::chrono::steady_clock::time_point finished_at_{};
};

}  // namespace paddock::mcp
